import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An event's orphan-seat rule, set at its creation: 'no-single-gaps' refuses a hold by seat ids that would
 * leave one free seat alone in its row (holds/allocation); 'none' does not. Events created before the rule
 * existed keep selling as they did ('none'); the service gives new events the rule unless they ask otherwise.
 */
export class OrphanRule1764600000000 implements MigrationInterface {
  name = 'OrphanRule1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE events
        ADD COLUMN orphan_rule text NOT NULL DEFAULT 'none',
        ADD CONSTRAINT events_orphan_rule_check CHECK (orphan_rule IN ('none', 'no-single-gaps'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events DROP CONSTRAINT events_orphan_rule_check, DROP COLUMN orphan_rule`);
  }
}
