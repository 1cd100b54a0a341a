import type { PlaceCount } from './create-hold-request';
import {
  CreateHoldResult,
  HoldRecord,
  HoldStatus,
  LostSeat,
  queueRefusalOf,
  SeatConflict,
  StoreResult,
} from './hold.types';

/** What every hold script answers: a code, then the hold (view(), lua/hold-records.lua) and a detail when there is one. */
export type ScriptReply = [string, ...unknown[]];

/** The hold as view() (lua/hold-records.lua) sends it. */
type RawHold = [
  string,
  string,
  HoldStatus,
  string[],
  number,
  number,
  number,
  number,
  number,
  string,
  number,
  number,
  number,
  number?,
  number?,
  string?,
  (string | number)[]?,
];

export function toHoldRecord(eventId: string, raw: unknown): HoldRecord {
  const r = raw as RawHold;
  return {
    holdId: r[0],
    eventId,
    userId: r[1],
    status: r[2],
    seatIds: r[3],
    createdAtMs: Number(r[4]),
    expireAtMs: Number(r[5]),
    maxExpireAtMs: Number(r[6]),
    extensionsUsed: Number(r[7]),
    fencingToken: Number(r[8]),
    orderId: r[9] ? r[9] : null,
    endedAtMs: Number(r[10]) || null,
    confirmDeadlineMs: Number(r[11]) || null,
    nowMs: Number(r[12]),
    maxExtensions: r[13] === undefined || Number(r[13]) < 0 ? null : Number(r[13]),
    maxTtlMs: Number(r[14] ?? 0) || null,
    pricing: r[15] ?? '',
    places: placesOf(r[16]),
  };
}

/** A hold's places as its record keeps them, {area, quantity, area, quantity...} (lua/places.lua). */
function placesOf(flat: (string | number)[] | undefined): PlaceCount[] {
  const places: PlaceCount[] = [];
  for (let i = 0; flat && i + 1 < flat.length; i += 2) {
    places.push({ area: String(flat[i]), quantity: Number(flat[i + 1]) });
  }
  return places;
}

/**
 * Whether a new hold's OK answer (create-hold.lua, best-available.lua) says its shard's wake-up must come
 * sooner (hold-keys.ts, WAKE_KEY): its third element is 0 when the shard already had work due no later.
 * An answer without it (a staff hold answered again from its ledger) wakes, as every hold once did.
 */
export const dueSooner = (reply: ScriptReply): boolean => reply[2] !== 0;

/** CREATE_HOLD's answer. */
export function toCreateResult(eventId: string, reply: ScriptReply): CreateHoldResult {
  switch (reply[0]) {
    case 'OK':
      return { ok: true, hold: toHoldRecord(eventId, reply[1]) };
    case 'SEATS_UNAVAILABLE':
      return {
        ok: false,
        error: 'SEATS_UNAVAILABLE',
        conflicts: (reply[1] as [string, SeatConflict['reason']][]).map(([seatId, reason]) => ({
          seatId,
          reason,
        })),
      };
    case 'SOLD_OUT':
      return {
        ok: false,
        error: 'SOLD_OUT',
        areas: (reply[1] as [string, number][]).map(([area, free]) => ({ area, free: Number(free) })),
      };
    case 'HOLD_LIMIT_EXCEEDED':
      return {
        ok: false,
        error: 'HOLD_LIMIT_EXCEEDED',
        heldSeats: Number(reply[1]),
        limit: Number(reply[2]),
      };
    case 'STALE_FENCING_TOKEN':
      return { ok: false, error: 'STALE_FENCING_TOKEN' };
    case 'NOT_LOCKED':
      return { ok: false, error: 'NOT_LOCKED' };
    case 'POLICY_CHANGED':
      return { ok: false, error: 'POLICY_CHANGED', current: String(reply[1]) };
    case 'EVENT_ENDED':
      return { ok: false, error: 'EVENT_ENDED' };
    case 'ACTION_CANCELLED':
      return { ok: false, error: 'ACTION_CANCELLED' };
    default: {
      const refusal = queueRefusalOf(reply);
      if (refusal) {
        return refusal;
      }
      throw new Error(`holdCreate: unexpected reply ${String(reply[0])}`);
    }
  }
}

/** The answer of a script that changes an existing hold (extend, release, confirm steps). */
export function toStoreResult<E extends string>(eventId: string, reply: ScriptReply): StoreResult<E> {
  const hold = reply[1] === undefined ? undefined : toHoldRecord(eventId, reply[1]);
  if (reply[0] === 'OK') {
    return { ok: true, hold: hold! };
  }
  if (reply[0] === 'SEATS_LOST') {
    const lostSeats: LostSeat[] = (reply[2] as [string, LostSeat['state']][]).map(([seatId, state]) => ({
      seatId,
      state,
    }));
    return { ok: false, error: reply[0] as E, hold, lostSeats };
  }
  return { ok: false, error: reply[0] as E, hold };
}
