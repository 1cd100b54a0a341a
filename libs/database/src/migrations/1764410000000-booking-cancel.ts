import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A booking may be cancelled by box-office staff (CANCELLED): its seats leave booking_seats (they may be
 * booked again), the row stays, so its (hold_id, fencing_token) key still makes a late commit of its
 * attempt lose and its history is kept.
 */
export class BookingCancel1764410000000 implements MigrationInterface {
  name = 'BookingCancel1764410000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE bookings DROP CONSTRAINT bookings_status_check`);
    await q.query(
      `ALTER TABLE bookings ADD CONSTRAINT bookings_status_check CHECK (status IN ('CONFIRMED', 'ABANDONED', 'CANCELLED'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE bookings DROP CONSTRAINT bookings_status_check`);
    await q.query(
      `ALTER TABLE bookings ADD CONSTRAINT bookings_status_check CHECK (status IN ('CONFIRMED', 'ABANDONED'))`,
    );
  }
}
