import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Waiting-list entries for the places of a general-admission area. An entry names the area (`area`)
 * instead of a seat category: it is offered freed places of that area alone, and an entry without one is
 * offered seats alone, so each area has its own queue beside the seats' (the queue index leads with the
 * area). An offer keeps the places its hold took (`places`, [{ area, quantity }]; NULL for seats), so a
 * redelivery announces the same offer.
 */
export class WaitlistAreas1764990000000 implements MigrationInterface {
  name = 'WaitlistAreas1764990000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE waitlist_entries ADD COLUMN area text`);
    await q.query(
      `ALTER TABLE waitlist_entries ADD CONSTRAINT waitlist_entries_area_check CHECK (area IS NULL OR category IS NULL)`,
    );
    await q.query(`DROP INDEX waitlist_entries_queue_idx`);
    await q.query(
      `CREATE INDEX waitlist_entries_queue_idx ON waitlist_entries (event_id, area, created_at, id) WHERE status = 'WAITING'`,
    );
    await q.query(`ALTER TABLE waitlist_offers ADD COLUMN places jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE waitlist_offers DROP COLUMN places`);
    await q.query(`DROP INDEX waitlist_entries_queue_idx`);
    await q.query(
      `CREATE INDEX waitlist_entries_queue_idx ON waitlist_entries (event_id, created_at, id) WHERE status = 'WAITING'`,
    );
    await q.query(`ALTER TABLE waitlist_entries DROP CONSTRAINT waitlist_entries_area_check`);
    await q.query(`ALTER TABLE waitlist_entries DROP COLUMN area`);
  }
}
