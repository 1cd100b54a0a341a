import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The waiting list of sold-out shows. waitlist_entries: one row per user's place in an event's queue,
 * first come first served by created_at (id breaks a tie); a user has at most one open entry (WAITING or
 * OFFERED) per event, and may join again once it is closed. waitlist_offers: one row per freed seat change
 * (its seat.status event id) that was turned into an offer, claimed in the transaction that marks the entry
 * OFFERED (one change may make several offers, all in one transaction), so a redelivered or rebalanced
 * message never makes a second offer for the same freed seats; published_at: its WaitlistOfferMade went out.
 */
export class Waitlist1764500000000 implements MigrationInterface {
  name = 'Waitlist1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE waitlist_entries (
        id uuid PRIMARY KEY,
        event_id uuid NOT NULL,
        user_id text NOT NULL,
        quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 10),
        category text,
        status text NOT NULL CHECK (status IN ('WAITING', 'OFFERED', 'ACCEPTED', 'LAPSED', 'LEFT')),
        hold_id text,
        offer_expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE UNIQUE INDEX waitlist_entries_open_idx ON waitlist_entries (event_id, user_id) WHERE status IN ('WAITING', 'OFFERED')`,
    );
    await q.query(
      `CREATE INDEX waitlist_entries_queue_idx ON waitlist_entries (event_id, created_at, id) WHERE status = 'WAITING'`,
    );
    await q.query(
      `CREATE INDEX waitlist_entries_hold_idx ON waitlist_entries (hold_id) WHERE hold_id IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE waitlist_offers (
        source_event_id text NOT NULL,
        entry_id uuid NOT NULL,
        hold_id text NOT NULL,
        seat_ids text[] NOT NULL,
        offer_expires_at timestamptz NOT NULL,
        published_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (source_event_id, entry_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE waitlist_offers`);
    await q.query(`DROP TABLE waitlist_entries`);
  }
}
