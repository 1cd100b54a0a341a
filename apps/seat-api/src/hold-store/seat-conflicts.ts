import type Redis from 'ioredis';
import type { EventKeys } from './hold-keys';
import type { SeatConflict } from './hold.types';
import { fixedKeyCount, luaScript } from '@app/redis';
import { HOLD_LUA_DIR, SEAT_CONFLICTS } from './lua/manifest';

/** The lock-free read a busy seat lock asks for (lua/seat-conflicts.lua): which requested seats are taken now. */
const SEAT_CONFLICTS_LUA = luaScript(HOLD_LUA_DIR, SEAT_CONFLICTS);

const COMMAND = 'holdSeatConflicts';

type Reader = Record<typeof COMMAND, (...args: string[]) => Promise<[string, SeatConflict['reason']][]>>;

/**
 * Registers the script on the client; call it when the store is built, never at first use: an
 * auto-pipeline opened before defineCommand lacks the command, so a call queued on it throws inside
 * ioredis, which then crashes the process ("results[i] is not iterable"; seen under load on a Cluster).
 */
export function defineSeatConflicts(redis: Redis): void {
  if (!(COMMAND in redis)) {
    redis.defineCommand(COMMAND, { numberOfKeys: fixedKeyCount(SEAT_CONFLICTS), lua: SEAT_CONFLICTS_LUA });
  }
}

/** One EVALSHA (ioredis falls back to EVAL after a SCRIPT FLUSH); defineSeatConflicts ran at construction. */
export async function readSeatConflicts(
  redis: Redis,
  keys: Pick<EventKeys, 'seats' | 'holds' | 'meta'>,
  seatIds: readonly string[],
): Promise<SeatConflict[]> {
  defineSeatConflicts(redis); // a no-op when the store defined it (a client used without a store)
  const { seats, holds, meta } = keys;
  const reply = await (redis as unknown as Reader)[COMMAND](seats, holds, meta, ...seatIds);
  return reply.map(([seatId, reason]) => ({ seatId, reason }));
}
