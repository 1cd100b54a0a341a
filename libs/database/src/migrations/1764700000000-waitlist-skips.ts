import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Why a WAITING entry was last passed over: freed seats it fitted went to the entries behind it because the
 * seat API refused its offer hold for a reason of its own (the user's rate limit, their hold limit), and
 * when. The entry keeps its place; its user reads the reason.
 */
export class WaitlistSkips1764700000000 implements MigrationInterface {
  name = 'WaitlistSkips1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE waitlist_entries ADD COLUMN skip_reason text, ADD COLUMN skipped_at timestamptz`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE waitlist_entries DROP COLUMN skip_reason, DROP COLUMN skipped_at`);
  }
}
