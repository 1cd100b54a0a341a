import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-event settings: whether the event sells (OPEN, CLOSED by an admin, or CANCELLED for good) and its
 * own hold limits. A NULL limit is the deployment's (the HOLD_* environment values), so events that do
 * not set one follow the environment. `policy_version` goes up with every change: the hold store keeps
 * the version a hold is checked against, so no instance makes a hold under settings that have changed.
 * The (starts_at, id) index serves the event list, which pages by start time.
 */
export class EventSettings1764200000000 implements MigrationInterface {
  name = 'EventSettings1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE events
        ADD COLUMN sales text NOT NULL DEFAULT 'OPEN',
        ADD COLUMN policy_version integer NOT NULL DEFAULT 1,
        ADD COLUMN default_hold_ttl_seconds integer,
        ADD COLUMN max_hold_ttl_seconds integer,
        ADD COLUMN max_seats_per_hold integer,
        ADD COLUMN max_seats_per_user integer,
        ADD COLUMN max_hold_extensions integer,
        ADD COLUMN max_hold_lifetime_seconds integer,
        ADD CONSTRAINT events_sales_check CHECK (sales IN ('OPEN', 'CLOSED', 'CANCELLED'))`);
    await q.query(`CREATE INDEX events_starts_at_idx ON events (starts_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX events_starts_at_idx`);
    await q.query(`
      ALTER TABLE events
        DROP CONSTRAINT events_sales_check,
        DROP COLUMN sales,
        DROP COLUMN policy_version,
        DROP COLUMN default_hold_ttl_seconds,
        DROP COLUMN max_hold_ttl_seconds,
        DROP COLUMN max_seats_per_hold,
        DROP COLUMN max_seats_per_user,
        DROP COLUMN max_hold_extensions,
        DROP COLUMN max_hold_lifetime_seconds`);
  }
}
