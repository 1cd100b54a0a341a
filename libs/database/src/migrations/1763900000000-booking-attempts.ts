import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A confirm attempt, not a hold, is what the repair path gives up. Before: one row per hold (hold_id
 * unique), so the ABANDONED marker of one timed-out attempt refused every later confirm of a hold that
 * Redis had handed back as ACTIVE. Now:
 *   - (hold_id, fencing_token) is unique: an attempt is the fencing token its beginConfirm stored, and
 *     its ABANDONED marker makes a late commit of that same attempt lose on this key;
 *   - hold_id is unique among CONFIRMED rows: a hold is still booked at most once, whatever the attempt.
 * booking_seats' primary key still books a seat at most once.
 */
export class BookingAttempts1763900000000 implements MigrationInterface {
  name = 'BookingAttempts1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE bookings DROP CONSTRAINT bookings_hold_id_key`);
    await q.query(`CREATE UNIQUE INDEX bookings_hold_attempt_key ON bookings (hold_id, fencing_token)`);
    await q.query(
      `CREATE UNIQUE INDEX bookings_hold_confirmed_key ON bookings (hold_id) WHERE status = 'CONFIRMED'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    // one row per hold again: keep its CONFIRMED row, else its latest marker
    await q.query(`
      DELETE FROM bookings b USING bookings keep
       WHERE b.hold_id = keep.hold_id AND b.id <> keep.id AND b.status = 'ABANDONED'
         AND (keep.status = 'CONFIRMED' OR (keep.status = 'ABANDONED' AND keep.fencing_token > b.fencing_token))`);
    await q.query(`DROP INDEX bookings_hold_confirmed_key`);
    await q.query(`DROP INDEX bookings_hold_attempt_key`);
    await q.query(`ALTER TABLE bookings ADD CONSTRAINT bookings_hold_id_key UNIQUE (hold_id)`);
  }
}
