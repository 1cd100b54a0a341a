import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Places of a general-admission area box office took off sale: how many, per area (event_areas.blocked),
 * the record from which the hold store's count is repaired after Redis lost its data. Never more than the
 * area has.
 */
export class AreaBlocks1764910000000 implements MigrationInterface {
  name = 'AreaBlocks1764910000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE event_areas ADD COLUMN blocked integer NOT NULL DEFAULT 0`);
    await q.query(
      `ALTER TABLE event_areas ADD CONSTRAINT event_areas_blocked_check CHECK (blocked BETWEEN 0 AND capacity)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE event_areas DROP CONSTRAINT event_areas_blocked_check`);
    await q.query(`ALTER TABLE event_areas DROP COLUMN blocked`);
  }
}
