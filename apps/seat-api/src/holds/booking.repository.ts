import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, QueryFailedError } from 'typeorm';
import { BookingEntity, BookingSeatEntity } from '@app/database';
import type { HoldRecord } from './store';

export type BookResult =
  | { ok: true; booking: BookingEntity }
  | { ok: false; reason: 'HOLD_ALREADY_DECIDED'; existing: BookingEntity }
  | { ok: false; reason: 'SEAT_ALREADY_BOOKED' };

const UNIQUE_VIOLATION = '23505';

/** Bookings in PostgreSQL: the truth about who has a seat. One transaction per confirm. */
@Injectable()
export class BookingRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  findByHold(holdId: string): Promise<BookingEntity | null> {
    return this.db.getRepository(BookingEntity).findOne({ where: { holdId } });
  }

  /**
   * Writes the booking and its seats at once. A row for this hold may already exist: the same confirm
   * retried, or the reconciler's ABANDONED marker (it gave up on this hold first) — the caller decides.
   */
  async book(hold: HoldRecord, orderId: string): Promise<BookResult> {
    const booking = Object.assign(new BookingEntity(), {
      id: randomUUID(),
      holdId: hold.holdId,
      orderId,
      eventId: hold.eventId,
      userId: hold.userId,
      status: 'CONFIRMED' as const,
      fencingToken: hold.fencingToken,
      seatIds: hold.seatIds,
    });
    try {
      await this.db.transaction(async (tx) => {
        await tx.insert(BookingEntity, booking);
        await tx.insert(
          BookingSeatEntity,
          hold.seatIds.map((seatId) => ({ eventId: hold.eventId, seatId, bookingId: booking.id })),
        );
      });
      return { ok: true, booking };
    } catch (e) {
      if (e instanceof QueryFailedError && (e.driverError as { code?: string }).code === UNIQUE_VIOLATION) {
        const existing = await this.findByHold(hold.holdId);
        if (existing) {
          return { ok: false, reason: 'HOLD_ALREADY_DECIDED', existing };
        }
        return { ok: false, reason: 'SEAT_ALREADY_BOOKED' };
      }
      throw e;
    }
  }
}
