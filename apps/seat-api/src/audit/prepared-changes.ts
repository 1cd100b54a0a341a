import type { QueryRunner } from 'typeorm';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { AuditAction } from './audit-action';

/**
 * The PostgreSQL part of a staff action whose change lives in both stores (a booking cancelled: the
 * booking row here, its seats in Redis). It is written in the transaction that writes the action's entry
 * PENDING (AuditLog.begin), before the Redis change, because it can be taken back and the Redis change
 * cannot (a freed seat is held by a customer a moment later): while the entry is PENDING the seats are
 * still booked in Redis, so nothing is sold twice. If the action is given up, the entry's deletion takes
 * this part back in its own transaction (AuditLog.discard), from what the entry records: any instance can
 * do it, as any instance settles a PENDING entry.
 *
 * The action runs under its seats' lock, from before its entry is written until it is decided. So a
 * PENDING entry of such an action, met by another under the same seats' lock, has no writer left (its
 * request failed or died): it is decided at once (AuditedActions.run), not when its time is up, or a
 * retry would meet its part here as if it were done (a block refused as "blocked already", then given up).
 */
export interface PreparedChange {
  /** The seats whose lock the action holds while its entry is PENDING (its entry's detail.seatIds). */
  readonly seatIds: readonly string[];
  /**
   * Writes the part; a refusal (the row is not in the state asked) throws its DomainError. What it
   * returns is added to the entry's detail: what its undo needs to take it back.
   */
  apply(qr: QueryRunner): Promise<Record<string, unknown> | void>;
}

const seatsUnavailable = (conflicts: { seatId: string; reason: string }[]) =>
  new DomainError(ErrorCode.SEATS_UNAVAILABLE, `${conflicts.length} seat(s) are not available`, {
    details: conflicts,
  });

/**
 * The seats enter seat_blocks (the record the seat store is repaired from). Refused, nothing written,
 * when a seat is booked (booking_seats) or blocked already.
 */
export function blockSeatRows(
  eventId: string,
  seatIds: string[],
  reason: string,
  actor: string,
): PreparedChange {
  return {
    seatIds,
    async apply(qr) {
      const booked = (await qr.query(
        `SELECT seat_id FROM booking_seats WHERE event_id = $1 AND seat_id = ANY($2)`,
        [eventId, seatIds],
      )) as { seat_id: string }[];
      const blocked = (await qr.query(
        `SELECT seat_id FROM seat_blocks WHERE event_id = $1 AND seat_id = ANY($2) FOR UPDATE`,
        [eventId, seatIds],
      )) as { seat_id: string }[];
      if (booked.length + blocked.length > 0) {
        throw seatsUnavailable([
          ...booked.map((r) => ({ seatId: r.seat_id, reason: 'BOOKED' })),
          ...blocked.map((r) => ({ seatId: r.seat_id, reason: 'BLOCKED' })),
        ]);
      }
      // a racing block of the same seat waits on the primary key and then fails: that request is refused
      await qr.query(
        `INSERT INTO seat_blocks (event_id, seat_id, reason, blocked_by) SELECT $1, unnest($2::text[]), $3, $4`,
        [eventId, seatIds, reason, actor],
      );
    },
  };
}

/** The seats leave seat_blocks; their rows go into the entry's detail, for the undo. */
export function unblockSeatRows(eventId: string, seatIds: string[]): PreparedChange {
  return {
    seatIds,
    async apply(qr) {
      const [gone] = (await qr.query(
        `DELETE FROM seat_blocks WHERE event_id = $1 AND seat_id = ANY($2)
         RETURNING seat_id, reason, blocked_by, blocked_at`,
        [eventId, seatIds],
      )) as [{ seat_id: string; reason: string; blocked_by: string; blocked_at: Date }[], number];
      if (gone.length < seatIds.length) {
        const missing = seatIds.filter((s) => !gone.some((r) => r.seat_id === s));
        throw new DomainError(ErrorCode.SEAT_NOT_BLOCKED, `${missing.length} seat(s) are not blocked`, {
          details: missing.map((seatId) => ({ seatId })),
        });
      }
      return { blocks: gone };
    },
  };
}

/** The booking becomes CANCELLED and its seats leave booking_seats (bookable again once Redis frees them). */
export function cancelBookingRow(bookingId: string, seatIds: string[]): PreparedChange {
  return {
    seatIds,
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
 * `quantity` places of a general-admission area go off sale (`delta` > 0) or back on (`delta` < 0) in
 * event_areas.blocked. Refused, nothing written, past the area's capacity or below 0 blocked. `lockKey`:
 * the area's lock key (its entry's detail.seatIds), under which the action runs.
 */
export function blockAreaPlaces(
  eventId: string,
  area: string,
  delta: number,
  lockKey: string,
): PreparedChange {
  return {
    seatIds: [lockKey],
    async apply(qr) {
      const rows = (await qr.query(
        `UPDATE event_areas SET blocked = blocked + $3
          WHERE event_id = $1 AND name = $2 AND blocked + $3 BETWEEN 0 AND capacity RETURNING blocked`,
        [eventId, area, delta],
      )) as [unknown[], number];
      if (rows[1] === 0) {
        throw delta > 0
          ? new DomainError(ErrorCode.SOLD_OUT, `Area ${area} has too few places to block`, {
              details: [{ area }],
            })
          : new DomainError(ErrorCode.PLACES_NOT_BLOCKED, `Area ${area} has fewer places blocked`, {
              details: [{ area }],
            });
      }
    },
  };
}

/** The actions that write a prepared part: the ones undoPrepared takes back. */
export const PREPARED_ACTIONS: readonly AuditAction[] = [
  AuditAction.SEATS_BLOCK,
  AuditAction.SEATS_UNBLOCK,
  AuditAction.BOOKING_CANCEL,
  AuditAction.PLACES_BLOCK,
  AuditAction.PLACES_UNBLOCK,
];

/**
 * Takes back the prepared part of a discarded entry, by its action and detail. A cancellation given up
 * books its seats again: nobody else can have booked them meanwhile (Redis kept them BOOKED, and no hold
 * takes a booked seat).
 */
export async function undoPrepared(
  qr: QueryRunner,
  entry: { action: string; event_id: string; detail: Record<string, unknown> | null },
): Promise<void> {
  const { action, detail } = entry;
  if (action === String(AuditAction.SEATS_BLOCK) && Array.isArray(detail?.seatIds)) {
    await qr.query(`DELETE FROM seat_blocks WHERE event_id = $1 AND seat_id = ANY($2)`, [
      entry.event_id,
      detail.seatIds,
    ]);
  }
  if (action === String(AuditAction.SEATS_UNBLOCK) && Array.isArray(detail?.blocks)) {
    const blocks = detail.blocks as {
      seat_id: string;
      reason: string;
      blocked_by: string;
      blocked_at: string;
    }[];
    await qr.query(
      `INSERT INTO seat_blocks (event_id, seat_id, reason, blocked_by, blocked_at)
       SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[])`,
      [
        entry.event_id,
        blocks.map((b) => b.seat_id),
        blocks.map((b) => b.reason),
        blocks.map((b) => b.blocked_by),
        blocks.map((b) => b.blocked_at),
      ],
    );
  }
  const places =
    action === String(AuditAction.PLACES_BLOCK) ? -1 : action === String(AuditAction.PLACES_UNBLOCK) ? 1 : 0;
  if (places !== 0 && typeof detail?.area === 'string' && typeof detail?.quantity === 'number') {
    await qr.query(`UPDATE event_areas SET blocked = blocked + $3 WHERE event_id = $1 AND name = $2`, [
      entry.event_id,
      detail.area,
      places * detail.quantity,
    ]);
  }
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
