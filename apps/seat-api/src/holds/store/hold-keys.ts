/**
 * Redis layout of one event. Every key carries the event id as its hash tag, so all of them live in
 * one Cluster slot and each script can touch them atomically. (The ioredis keyPrefix is added on top.)
 *
 *   seats   HASH  seatId -> "H|hid|expireAtMs|fence" (held), "B|hid|0|fence" (booked), "F||0|fence" (free)
 *                 A freed seat keeps its last fencing token, so a stale lock holder cannot write after a release.
 *   holds   HASH  hid -> cmsgpack record (see lua/prelude.lua.ts)
 *   due     ZSET  hid -> expireAtMs for ACTIVE holds, confirm deadline for CONFIRMING ones: what the sweeper reads
 *   users   HASH  userId -> comma-separated hids of that user's live holds (per-user seat cap)
 *   outbox  STREAM one SeatExpired record per freed seat, appended by the script that freed it
 *   gc      ZSET  hid -> when an ended hold may be forgotten (after the retention period)
 *   meta    HASH  seat-map meta: v = the event's change version (bumped once per change-log entry),
 *                 held / booked = how many seats the seats hash holds as 'H' (lapsed or not) and 'B'
 *   changes STREAM the change log seat-map readers follow (lua/change-log.lua.ts): entry id `<v>-0`, fields
 *                 seatId -> 'A' (available), 'B' (booked), 'H<expireAtMs>' (held until then) or 'H0'
 *                 (held while a confirm is in flight, whatever the time); trimmed to about
 *                 CHANGE_LOG_MAX_ENTRIES entries
 *
 * Each script also gets, as KEYS[7], the lock library's fencing counter of the event's seat locks
 * (`DistributedLockService.fenceKey('{<eventId>}')`, `lock:fence:{<eventId>}` by default): the seat lock keys
 * `seat:{<eventId>}:<seatId>` carry the same tag, so the counter lives in this slot too and a script can
 * compare a token with it (see lua/prelude.lua.ts, fence_ok()). The store never INCRs it; it only raises
 * it to a seat's fence after Redis lost the counter. The seat-map keys follow as KEYS[8] (meta) and
 * KEYS[9] (changes): every script that changes a seat records the change there in the same atomic step.
 */
export interface EventKeys {
  seats: string;
  holds: string;
  due: string;
  users: string;
  outbox: string;
  gc: string;
  meta: string;
  changes: string;
}

export function eventKeys(eventId: string): EventKeys {
  const base = `hold:{${eventId}}:`;
  return {
    seats: `${base}seats`,
    holds: `${base}holds`,
    due: `${base}due`,
    users: `${base}users`,
    outbox: `${base}outbox`,
    gc: `${base}gc`,
    meta: `${base}meta`,
    changes: `${base}changes`,
  };
}

/** In the order every hold script declares them as KEYS[1..6] (the fence counter follows as KEYS[7]). */
export function eventKeyList(eventId: string): string[] {
  const k = eventKeys(eventId);
  return [k.seats, k.holds, k.due, k.users, k.outbox, k.gc];
}

/** Registry of events the sweeper and the outbox relay visit (not per event: no hash tag). */
export const EVENTS_KEY = 'hold:events';
