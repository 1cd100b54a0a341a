/**
 * Helpers for the confirm-path tests: put a hold into the states a confirm can leave it in (as a real
 * confirm would, with a real seat-lock fencing token), and check that every view of the hold — GET,
 * confirm, extend, release, the seat map — tells the same story as PostgreSQL.
 */
import { DistributedLockService } from '@app/distributed-lock';
import { randomUUID } from 'node:crypto';
import { HoldRecord, HoldStore } from '../../apps/seat-api/src/hold-store';
import { Db } from './db';
import { Api } from './seat-api';

export interface Held {
  holdId: string;
  eventId: string;
  seatIds: string[];
  token: string;
}

/** What the hold must be, in both stores. */
export type Want = { status: 'ACTIVE' } | { status: 'CONFIRMED'; orderId: string } | { status: 'RELEASED' };

export async function holdSeats(api: Api, token: string, eventId: string, seatIds: string[]): Promise<Held> {
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, { token, body: { seatIds } });
  if (r.status !== 201) {
    throw new Error(`hold: ${r.status} ${JSON.stringify(r.body)}`);
  }
  return { holdId: r.body.holdId, eventId, seatIds: [...seatIds].sort(), token };
}

export const confirmHold = (api: Api, h: Held, orderId: string) =>
  api.call('POST', `/v1/holds/${h.holdId}/confirm`, { token: h.token, body: { orderId } });

/**
 * Step 1 of a confirm exactly as the service runs it (seat lock taken, its fencing token handed to the
 * store), after which the "process" stops: the hold is CONFIRMING and nothing else happens.
 */
export async function beginConfirmThenStop(
  api: Api,
  h: Held,
  userId: string,
  orderId: string,
  confirmTimeoutMs: number,
): Promise<HoldRecord> {
  const locks = api.app.get(DistributedLockService);
  const lock = await locks.acquire(api.app.get(HoldStore).layout.seatLockKeys(h.eventId, h.seatIds), {
    leaseMs: 2000,
    waitMs: 2000,
  });
  try {
    const begun = await api.app.get(HoldStore).beginConfirm({
      holdId: h.holdId,
      userId,
      orderId,
      fencingToken: lock.fencingToken,
      confirmTimeoutMs,
    });
    if (!begun.ok) {
      throw new Error(`beginConfirm: ${begun.error}`);
    }
    return begun.hold;
  } finally {
    await lock.release();
  }
}

/** The booking a confirm's transaction writes, committed here as if that confirm had committed it. */
export async function commitBookingAsConfirmWould(db: Db, begun: HoldRecord, orderId: string): Promise<void> {
  const id = randomUUID();
  await db.rows('BEGIN');
  await db.rows(
    `INSERT INTO bookings (id, hold_id, order_id, event_id, user_id, status, fencing_token, seat_ids)
     VALUES ($1, $2, $3, $4, $5, 'CONFIRMED', $6, $7)`,
    [id, begun.holdId, orderId, begun.eventId, begun.userId, begun.fencingToken, begun.seatIds],
  );
  for (const seatId of begun.seatIds) {
    await db.rows(`INSERT INTO booking_seats (event_id, seat_id, booking_id) VALUES ($1, $2, $3)`, [
      begun.eventId,
      seatId,
      id,
    ]);
  }
  await db.rows('COMMIT');
}

export async function seatStates(api: Api, h: Held): Promise<string[]> {
  const r = await api.call('GET', `/v1/events/${h.eventId}/seats`, { token: h.token });
  const byId = new Map<string, string>(
    (r.body.seats as { seatId: string; status: string }[]).map((s) => [s.seatId, s.status]),
  );
  return h.seatIds.map((s) => byId.get(s) ?? 'MISSING');
}

/** What PostgreSQL says about the hold: its CONFIRMED booking (at most one) and the seats booked for it. */
export async function pgVerdict(db: Db, holdId: string) {
  const confirmed = await db.rows<{ order_id: string }>(
    `SELECT order_id FROM bookings WHERE hold_id = $1 AND status = 'CONFIRMED'`,
    [holdId],
  );
  const seats = await db.rows<{ seat_id: string }>(
    `SELECT bs.seat_id FROM booking_seats bs JOIN bookings b ON b.id = bs.booking_id
     WHERE b.hold_id = $1 ORDER BY bs.seat_id`,
    [holdId],
  );
  return { orders: confirmed.map((r) => r.order_id), seats: seats.map((r) => r.seat_id) };
}

/**
 * Every way the client can look at the hold agrees with PostgreSQL. For an ACTIVE hold this extends it
 * (proving extend works); for a CONFIRMED one it replays the confirm (proving the replay works).
 */
export async function expectAgreement(api: Api, db: Db, h: Held, want: Want): Promise<void> {
  const pg = await pgVerdict(db, h.holdId);
  const read = await api.call('GET', `/v1/holds/${h.holdId}`, { token: h.token });
  expect(read.status).toBe(200);
  const seats = await seatStates(api, h);
  switch (want.status) {
    case 'CONFIRMED': {
      expect(pg).toEqual({ orders: [want.orderId], seats: h.seatIds });
      expect(read.body.status).toBe('CONFIRMED');
      expect(seats).toEqual(h.seatIds.map(() => 'BOOKED'));
      const replay = await confirmHold(api, h, want.orderId);
      expect([replay.status, replay.body.orderId, replay.body.seatIds]).toEqual([
        200,
        want.orderId,
        h.seatIds,
      ]);
      const other = await confirmHold(api, h, `${want.orderId}-other`);
      expect([other.status, other.body.code]).toEqual([409, 'HOLD_NOT_ACTIVE']);
      const extend = await api.call('POST', `/v1/holds/${h.holdId}/extend`, {
        token: h.token,
        body: { ttlSeconds: 60 },
      });
      expect([extend.status, extend.body.code]).toEqual([409, 'HOLD_NOT_ACTIVE']);
      const release = await api.call('DELETE', `/v1/holds/${h.holdId}`, { token: h.token });
      expect([release.status, release.body.code]).toEqual([409, 'HOLD_CONFIRMED']);
      break;
    }
    case 'ACTIVE': {
      expect(pg).toEqual({ orders: [], seats: [] });
      expect(read.body.status).toBe('ACTIVE');
      expect(read.body.expiresInSeconds).toBeGreaterThan(0);
      expect(seats).toEqual(h.seatIds.map(() => 'HELD'));
      const extend = await api.call('POST', `/v1/holds/${h.holdId}/extend`, {
        token: h.token,
        body: { ttlSeconds: 60 },
      });
      expect([extend.status, extend.body.status]).toEqual([200, 'ACTIVE']);
      break;
    }
    case 'RELEASED': {
      expect(pg).toEqual({ orders: [], seats: [] });
      expect(read.body.status).toBe('RELEASED');
      expect(seats).toEqual(h.seatIds.map(() => 'AVAILABLE'));
      const confirm = await confirmHold(api, h, 'after-release');
      expect([confirm.status, confirm.body.code]).toEqual([409, 'HOLD_NOT_ACTIVE']);
      const release = await api.call('DELETE', `/v1/holds/${h.holdId}`, { token: h.token });
      expect(release.status).toBe(204);
      break;
    }
  }
}
