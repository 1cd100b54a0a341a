import { HOLD_BUCKETS } from './hold-buckets.lua';
import { HOLD_STATUS_CODES } from './prelude.lua';

/**
 * What seat-map readers run (seat-change-log.ts). KEYS: [1] the event's seat-map meta, [2] its change log,
 * [3] its seats hash, [4] its holds (the prefix of its hold buckets; see hold-keys.ts). Read-only, and each call costs what it
 * returns: never a whole-event read. (A build scans the seats with plain HSCAN calls, parsed in Node.)
 */

/** Redis TIME in ms: lazy expiry compares each held seat's expireAt with it, never with an app clock. */
const NOW = `
local t = redis.call('TIME')
local NOW = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * The change-log entries after version ARGV[1], at most ARGV[2] of them, with the current version and
 * counts. Replies {now, version, held, booked} when there is nothing newer or when the version is below
 * ARGV[1] (the meta hash was lost: the reader rebuilds), else {now, version, held, booked, entries}; the
 * reader checks that the first entry is ARGV[1] + 1 (else the log was trimmed past it: rebuild).
 */
export const SEAT_MAP_CHANGES = `${NOW}
local meta = redis.call('HMGET', KEYS[1], 'v', 'held', 'booked')
local version, from = tonumber(meta[1] or '0'), tonumber(ARGV[1])
local reply = { NOW, version, tonumber(meta[2] or '0'), tonumber(meta[3] or '0') }
if version <= from then return reply end
reply[5] = redis.call('XRANGE', KEYS[2], '(' .. ARGV[1] .. '-0', '+', 'COUNT', ARGV[2])
return reply
`;

/**
 * Whether each hold ARGV[1..] is being confirmed: 'CONFIRMING' when its record's status code (second
 * field, prelude.lua.ts) says so, else '' (any other status, or a hold that is gone): a snapshot build asks
 * it only for held seats that may belong to a confirm in flight (seat-change-log.ts).
 */
export const SEAT_MAP_HOLD_STATUSES = `${HOLD_BUCKETS}
hb_use(KEYS[1])
local out = {}
for i = 1, #ARGV do
  local raw = redis.call('HGET', KEYS[4] .. ':' .. hb_index(ARGV[i]), ARGV[i])
  out[i] = (raw and cmsgpack.unpack(raw)[2] == ${HOLD_STATUS_CODES.CONFIRMING}) and 'CONFIRMING' or ''
end
return out
`;

/**
 * Sets the held/booked counts a full build found, if the version is still the one the build reached
 * (ARGV[1]): counts kept by the scripts since are then right again, also for an event whose seats
 * predate the change log. Replies 1 when it wrote, 0 when the version moved on.
 */
export const SEAT_MAP_SET_COUNTS = `
if tonumber(redis.call('HGET', KEYS[1], 'v') or '0') ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'held', ARGV[2], 'booked', ARGV[3])
return 1
`;
