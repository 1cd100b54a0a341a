import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, QueryFailedError, QueryRunner } from 'typeorm';
import { BookingEntity, BookingSeatEntity, onConnectionWithin } from '@app/database';
import type { HoldRecord } from '../hold-store';
import { PricedSale, saleColumns } from '../pricing/priced-sale';
import { redeemPromoCode, RedemptionRefusal } from '../pricing/promo-redemption';

/** How one confirm attempt's booking transaction ended. */
export type BookResult =
  | { ok: true; booking: BookingEntity }
  /** The hold is booked already: this attempt committed on an earlier try, or another attempt did. */
  | { ok: false; reason: 'HOLD_CONFIRMED'; existing: BookingEntity }
  /** This attempt was given up first (its ABANDONED marker is in): it can never commit. */
  | { ok: false; reason: 'ATTEMPT_ABANDONED' }
  /** Some seats are booked by another hold (Redis had lost that booking). */
  | { ok: false; reason: 'SEATS_BOOKED'; seatIds: string[] }
  /** The hold's promo code could not be counted (used up, disabled, expired): nothing was written. */
  | { ok: false; reason: 'PROMO_CODE_UNAVAILABLE'; why: RedemptionRefusal }
  /**
   * PostgreSQL failed or timed out. `committed: false`: certainly nothing was written (the error came
   * before COMMIT, so the transaction rolled back). 'unknown': COMMIT itself failed; it may have gone
   * through.
   */
  | { ok: false; reason: 'FAILED'; committed: false | 'unknown'; error: unknown };

/** What PostgreSQL decided about one confirm attempt: its hold's booking, or the attempt's marker. */
export type AttemptDecision = { status: 'CONFIRMED'; booking: BookingEntity } | { status: 'ABANDONED' };

const UNIQUE_VIOLATION = '23505';

/**
 * Bookings in PostgreSQL: the truth about who has a seat. A confirm attempt is identified by the hold and
 * the fencing token its beginConfirm stored in Redis; see the BookingAttempts migration for the keys.
 * Every method takes a time budget and spends at most that on PostgreSQL: a transaction-local
 * statement_timeout for a server that answers (a locked table, a stuck row lock), and a client-side
 * deadline for one that does not (partition, frozen host: onConnectionWithin), so the caller's wait is
 * bounded either way, never the connection's defaults.
 */
@Injectable()
export class BookingRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The hold's booking, if it is booked (whatever attempt booked it). */
  findConfirmed(holdId: string, timeoutMs?: number): Promise<BookingEntity | null> {
    const find = (m: EntityManager) => m.findOne(BookingEntity, { where: { holdId, status: 'CONFIRMED' } });
    return timeoutMs === undefined ? find(this.db.manager) : this.within(timeoutMs, find);
  }

  /** How many of the event's holds are booked (CONFIRMED bookings; a cancelled booking is not). */
  countConfirmed(eventId: string, timeoutMs: number): Promise<number> {
    return this.within(timeoutMs, (m) => m.count(BookingEntity, { where: { eventId, status: 'CONFIRMED' } }));
  }

  /**
   * A booked hold as its booking tells it (for a hold Redis has forgotten), with the booking (which keeps
   * what it was sold for), or null when not booked.
   */
  async confirmedHold(holdId: string): Promise<{ hold: HoldRecord; booking: BookingEntity } | null> {
    const booking = await this.findConfirmed(holdId);
    if (!booking) {
      return null;
    }
    const at = booking.createdAt.getTime();
    const hold: HoldRecord = {
      holdId,
      eventId: booking.eventId,
      userId: booking.userId,
      status: 'CONFIRMED',
      seatIds: booking.seatIds,
      createdAtMs: at,
      expireAtMs: at,
      maxExpireAtMs: at,
      extensionsUsed: 0,
      fencingToken: booking.fencingToken,
      orderId: booking.orderId,
      endedAtMs: at,
      confirmDeadlineMs: null,
      nowMs: Date.now(),
    };
    return { hold, booking };
  }

  /**
   * Writes the booking of this attempt and its seats at once, or reports why it did not. A priced hold's
   * booking keeps what it was sold for (`sale`), and its promo code's use is counted first, in the same
   * transaction (redeemPromoCode): the code's row is taken before the booking is written, and a use is
   * counted exactly when the booking commits.
   */
  async book(
    hold: HoldRecord,
    orderId: string,
    timeoutMs: number,
    sale: PricedSale | null = null,
  ): Promise<BookResult> {
    const promo: { refused: RedemptionRefusal | null } = { refused: null };
    const booking = Object.assign(new BookingEntity(), {
      id: randomUUID(),
      holdId: hold.holdId,
      orderId,
      eventId: hold.eventId,
      userId: hold.userId,
      status: 'CONFIRMED' as const,
      fencingToken: hold.fencingToken,
      seatIds: hold.seatIds,
      places: hold.places && hold.places.length > 0 ? hold.places : null,
      ...saleColumns(sale),
    });
    let committing = false;
    try {
      await onConnectionWithin(this.db, timeoutMs, async (qr) => {
        await qr.startTransaction();
        try {
          await limitStatements(qr.manager, timeoutMs);
          promo.refused = sale?.promo ? await redeemPromoCode(qr.manager, sale.promo.id) : null;
          if (promo.refused) {
            await rollBack(qr);
            return;
          }
          await qr.manager.insert(BookingEntity, booking);
          if (hold.seatIds.length > 0) {
            await qr.manager.insert(
              BookingSeatEntity,
              hold.seatIds.map((seatId) => ({ eventId: hold.eventId, seatId, bookingId: booking.id })),
            );
          }
        } catch (e) {
          await rollBack(qr);
          throw e;
        }
        committing = true;
        await qr.commitTransaction();
      });
      if (promo.refused) {
        return { ok: false, reason: 'PROMO_CODE_UNAVAILABLE', why: promo.refused };
      }
      return { ok: true, booking };
    } catch (e) {
      // past its deadline the connection was ended before any COMMIT went out: the server rolls back
      if (committing) {
        return { ok: false, reason: 'FAILED', committed: 'unknown', error: e };
      }
      if (isUniqueViolation(e)) {
        return this.explainConflict(hold, timeoutMs).catch((error: unknown) => ({
          ok: false as const,
          reason: 'FAILED' as const,
          committed: false as const,
          error,
        }));
      }
      return { ok: false, reason: 'FAILED', committed: false, error: e };
    }
  }

  /**
   * Decides an attempt for good: inserts its ABANDONED marker unless a row for it is there, then reads
   * what stands. If the attempt's own transaction is still in flight, the insert waits for it (unique
   * key), so the answer is final either way: the hold's CONFIRMED booking (this attempt or another one
   * committed), or this attempt's marker (it never committed, and now never can).
   */
  decideAttempt(hold: HoldRecord, timeoutMs: number): Promise<AttemptDecision> {
    return this.within(timeoutMs, async (m) => {
      await m
        .createQueryBuilder()
        .insert()
        .into(BookingEntity)
        .values({
          id: randomUUID(),
          holdId: hold.holdId,
          orderId: null,
          eventId: hold.eventId,
          userId: hold.userId,
          status: 'ABANDONED',
          fencingToken: hold.fencingToken,
          seatIds: [],
        })
        .orIgnore()
        .execute();
      const booking = await m.findOne(BookingEntity, { where: { holdId: hold.holdId, status: 'CONFIRMED' } });
      return booking ? { status: 'CONFIRMED', booking } : { status: 'ABANDONED' };
    });
  }

  /** Which unique key the booking ran into, read after its transaction rolled back. */
  private async explainConflict(hold: HoldRecord, timeoutMs: number): Promise<BookResult> {
    return this.within(timeoutMs, async (m) => {
      const existing = await m.findOne(BookingEntity, {
        where: { holdId: hold.holdId, status: 'CONFIRMED' },
      });
      if (existing) {
        return { ok: false, reason: 'HOLD_CONFIRMED', existing };
      }
      const marker = await m.findOne(BookingEntity, {
        where: { holdId: hold.holdId, fencingToken: hold.fencingToken },
      });
      if (marker) {
        return { ok: false, reason: 'ATTEMPT_ABANDONED' };
      }
      const taken = await m.query<{ seat_id: string }[]>(
        `SELECT seat_id FROM booking_seats WHERE event_id = $1 AND seat_id = ANY($2) ORDER BY seat_id`,
        [hold.eventId, hold.seatIds],
      );
      if (taken.length === 0) {
        const error = new Error(`booking of hold ${hold.holdId} hit a unique key that no row explains`);
        return { ok: false, reason: 'FAILED', committed: false, error };
      }
      return { ok: false, reason: 'SEATS_BOOKED', seatIds: taken.map((r) => r.seat_id) };
    });
  }

  /** One transaction that ends within `timeoutMs`, committed if `work` succeeds. */
  private within<T>(timeoutMs: number, work: (m: EntityManager) => Promise<T>): Promise<T> {
    return onConnectionWithin(this.db, timeoutMs, async (qr) => {
      await qr.startTransaction();
      try {
        await limitStatements(qr.manager, timeoutMs);
        const result = await work(qr.manager);
        await qr.commitTransaction();
        return result;
      } catch (e) {
        await rollBack(qr);
        throw e;
      }
    });
  }
}

/** A dead connection rolled back by itself (the server ends its transaction with the session). */
async function rollBack(qr: QueryRunner): Promise<void> {
  if (qr.isTransactionActive) {
    await qr.rollbackTransaction().catch(() => undefined);
  }
}

/** statement_timeout for the rest of this transaction only (0 would mean "no limit": at least 1 ms). */
async function limitStatements(m: EntityManager, timeoutMs: number): Promise<void> {
  await m.query(`SELECT set_config('statement_timeout', $1, true)`, [
    String(Math.max(1, Math.floor(timeoutMs))),
  ]);
}

function isUniqueViolation(e: unknown): boolean {
  return e instanceof QueryFailedError && (e.driverError as { code?: string }).code === UNIQUE_VIOLATION;
}
