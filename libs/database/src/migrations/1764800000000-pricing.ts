import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Prices. A show's price list is versioned: each change inserts a new row (event_id, version), never an
 * update, so a hold made under a version is priced by that row for its whole life; events.price_list_version
 * names the current one (NULL: the show has no price list, its holds are not priced). It is part of the
 * event's policy: raising it raises policy_version, which is how every instance learns of it.
 *
 * Promo codes belong to one show; `code` is stored upper-case (codes are matched in any letter case) and
 * unique per show. `uses` counts the bookings that carry the code: it goes up in the booking's own
 * transaction, only while below max_uses, so the count is exact whatever races, retries or crashes.
 *
 * A booking keeps what it was sold for: the price list version, the priced lines (jsonb), the sums in
 * minor units of `currency`, and the promo code, if any. NULL on bookings of unpriced holds.
 */
export class Pricing1764800000000 implements MigrationInterface {
  name = 'Pricing1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events ADD COLUMN price_list_version integer`);
    await q.query(`
      CREATE TABLE price_lists (
        event_id uuid NOT NULL,
        version integer NOT NULL,
        currency text NOT NULL,
        categories jsonb NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT price_lists_pkey PRIMARY KEY (event_id, version),
        CONSTRAINT price_lists_event_id_fkey FOREIGN KEY (event_id) REFERENCES events (id),
        CONSTRAINT price_lists_version_check CHECK (version > 0),
        CONSTRAINT price_lists_currency_check CHECK (currency ~ '^[A-Z]{3}$')
      )`);
    await q.query(`
      CREATE TABLE promo_codes (
        id uuid NOT NULL,
        event_id uuid NOT NULL,
        code text NOT NULL,
        kind text NOT NULL,
        value bigint NOT NULL,
        applies_to jsonb,
        unlocks text[] NOT NULL DEFAULT '{}',
        max_uses integer,
        uses integer NOT NULL DEFAULT 0,
        valid_from timestamptz,
        valid_until timestamptz,
        disabled_at timestamptz,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT promo_codes_pkey PRIMARY KEY (id),
        CONSTRAINT promo_codes_event_id_fkey FOREIGN KEY (event_id) REFERENCES events (id),
        CONSTRAINT promo_codes_kind_check CHECK (kind IN ('percent', 'amount', 'fixed-price')),
        CONSTRAINT promo_codes_value_check CHECK (value >= 0),
        CONSTRAINT promo_codes_uses_check CHECK (uses >= 0 AND (max_uses IS NULL OR uses <= max_uses))
      )`);
    await q.query(`CREATE UNIQUE INDEX promo_codes_event_code_key ON promo_codes (event_id, code)`);
    await q.query(`
      ALTER TABLE bookings
        ADD COLUMN price_list_version integer,
        ADD COLUMN currency text,
        ADD COLUMN lines jsonb,
        ADD COLUMN subtotal bigint,
        ADD COLUMN discount_total bigint,
        ADD COLUMN total bigint,
        ADD COLUMN promo_code_id uuid,
        ADD COLUMN promo_code text,
        ADD CONSTRAINT bookings_promo_code_id_fkey FOREIGN KEY (promo_code_id) REFERENCES promo_codes (id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE bookings
        DROP CONSTRAINT bookings_promo_code_id_fkey,
        DROP COLUMN price_list_version,
        DROP COLUMN currency,
        DROP COLUMN lines,
        DROP COLUMN subtotal,
        DROP COLUMN discount_total,
        DROP COLUMN total,
        DROP COLUMN promo_code_id,
        DROP COLUMN promo_code`);
    await q.query(`DROP TABLE promo_codes`);
    await q.query(`DROP TABLE price_lists`);
    await q.query(`ALTER TABLE events DROP COLUMN price_list_version`);
  }
}
