import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An event's rule for wheelchair places and companion seats in best-available holds that do not ask for
 * them, set at its creation: 'never' keeps them for accessible requests; 'when-others-gone' lets an
 * ordinary request have them once no block of other seats fits it. Events created before the setting
 * existed keep selling as they did ('never'); the service gives new events 'when-others-gone' unless they
 * ask otherwise.
 */
export class AccessibleSeatsForAll1764620000000 implements MigrationInterface {
  name = 'AccessibleSeatsForAll1764620000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE events
        ADD COLUMN accessible_seats_for_all text NOT NULL DEFAULT 'never',
        ADD CONSTRAINT events_accessible_seats_for_all_check
          CHECK (accessible_seats_for_all IN ('never', 'when-others-gone'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE events DROP CONSTRAINT events_accessible_seats_for_all_check, DROP COLUMN accessible_seats_for_all`,
    );
  }
}
