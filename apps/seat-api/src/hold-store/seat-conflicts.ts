import type Redis from 'ioredis';
import type { EventKeys } from './hold-keys';
import type { SeatConflict } from './hold.types';
import { HOLD_BUCKETS } from './lua/hold-buckets.lua';
import { HOLD_STATUS_CODES } from './lua/prelude.lua';

/**
 * The lock-free read a busy seat lock asks for: which of the requested seats are taken right now.
 * KEYS[1] the event's seats hash, KEYS[2] its holds (the prefix of its hold buckets), KEYS[3] its meta
 * (same hash tag); ARGV = seat ids.
 * Reply {{seatId, 'HELD'|'BOOKED'}...} in the order asked, by the same rule create-hold.lua.ts uses for
 * its conflict list: BOOKED; HELD while expireAt is in the future (Redis TIME) or while the hold is being
 * confirmed. A lapsed hold is simply not a conflict (this script writes nothing: the next locked hold
 * script expires it).
 *
 * Read-only, one HMGET (plus the bucket state and one HGET per lapsed hold), no PRELUDE and no change-log wrapper: it runs only
 * under contention, in place of waiting, and must stay cheap for a Redis serving a flash sale.
 */
const SEAT_CONFLICTS = `${HOLD_BUCKETS}
local buckets_read = false
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local values = redis.call('HMGET', KEYS[1], unpack(ARGV))
local out = {}
for i = 1, #ARGV do
  local v = values[i]
  if v then
    local c = string.sub(v, 1, 1)
    if c == 'B' then
      out[#out + 1] = { ARGV[i], 'BOOKED' }
    elseif c == 'H' then
      local hid, exp = string.match(v, '^H|([^|]*)|(%d+)|')
      local held = tonumber(exp) > now
      if not held then
        if not buckets_read then
          hb_use(KEYS[3])
          buckets_read = true
        end
        local raw = redis.call('HGET', KEYS[2] .. ':' .. hb_index(hid), hid)
        held = raw ~= false and cmsgpack.unpack(raw)[2] == ${HOLD_STATUS_CODES.CONFIRMING}
      end
      if held then out[#out + 1] = { ARGV[i], 'HELD' } end
    end
  end
end
return out
`;

const COMMAND = 'holdSeatConflicts';

type Reader = Record<typeof COMMAND, (...args: string[]) => Promise<[string, SeatConflict['reason']][]>>;

/**
 * Registers the script on the client; call it when the store is built, never at first use: an
 * auto-pipeline opened before defineCommand lacks the command, so a call queued on it throws inside
 * ioredis, which then crashes the process ("results[i] is not iterable"; seen under load on a Cluster).
 */
export function defineSeatConflicts(redis: Redis): void {
  if (!(COMMAND in redis)) {
    redis.defineCommand(COMMAND, { numberOfKeys: 3, lua: SEAT_CONFLICTS });
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
