import type { QueryRunner } from 'typeorm';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { AuditAction } from './audit-log';

/**
 * The PostgreSQL part of a staff action whose change lives in both stores (a booking cancelled: the
 * booking row here, its seats in Redis). It is written in the transaction that writes the action's entry
 * PENDING (AuditLog.begin), before the Redis change, because it can be taken back and the Redis change
 * cannot (a freed seat is held by a customer a moment later): while the entry is PENDING the seats are
 * still booked in Redis, so nothing is sold twice. If the action is given up, the entry's deletion takes
 * this part back in its own transaction (AuditLog.discard), from what the entry records: any instance can
 * do it, as any instance settles a PENDING entry.
 */
export interface PreparedChange {
  /** Writes the part; a refusal (the row is not in the state asked) throws its DomainError. */
  apply(qr: QueryRunner): Promise<void>;
}

/** The booking becomes CANCELLED and its seats leave booking_seats (bookable again once Redis frees them). */
export function cancelBookingRow(bookingId: string): PreparedChange {
  return {
    async apply(qr) {
      const rows = (await qr.query(
        `UPDATE bookings SET status = 'CANCELLED' WHERE id = $1 AND status = 'CONFIRMED' RETURNING id`,
        [bookingId],
      )) as [unknown[], number];
      if (rows[1] === 0) {
        throw new DomainError(ErrorCode.BOOKING_CANCELLED, `Booking ${bookingId} is cancelled already`);
      }
      await qr.query(`DELETE FROM booking_seats WHERE booking_id = $1`, [bookingId]);
    },
  };
}

/**
 * Takes back the prepared part of a discarded entry, by its action and detail. A cancellation given up
 * books its seats again: nobody else can have booked them meanwhile (Redis kept them BOOKED, and no hold
 * takes a booked seat).
 */
export async function undoPrepared(
  qr: QueryRunner,
  action: string,
  detail: Record<string, unknown> | null,
): Promise<void> {
  if (action === String(AuditAction.BOOKING_CANCEL) && typeof detail?.bookingId === 'string') {
    const back = (await qr.query(
      `UPDATE bookings SET status = 'CONFIRMED' WHERE id = $1 AND status = 'CANCELLED' RETURNING id`,
      [detail.bookingId],
    )) as [unknown[], number];
    if (back[1] > 0) {
      await qr.query(
        `INSERT INTO booking_seats (event_id, seat_id, booking_id)
         SELECT event_id, unnest(seat_ids), id FROM bookings WHERE id = $1`,
        [detail.bookingId],
      );
    }
  }
}
