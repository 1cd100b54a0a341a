import { PRELUDE } from './prelude.lua';

/**
 * One sweeper step for one event. ARGV[4] batch size, [5] ms before a stuck CONFIRMING hold is reported again.
 * Reads only the due head of the index (cost ~ what is due, not the number of seats or holds) and
 * re-checks each hold against Redis time and its status, so a hold extended, released, re-held or being
 * confirmed since it was indexed is never freed. Safe to run from many instances at once: each hold is
 * expired by exactly one script run. expiredSeats counts the seats actually freed (a seat booked since
 * the hold took it stays BOOKED, see prelude expire()). Replies {expiredHolds, expiredSeats, forgotten,
 * more, stuck...}.
 */
export const SWEEP = `${PRELUDE}
local batch, recheck = tonumber(ARGV[4]), tonumber(ARGV[5])
local due = redis.call('ZRANGEBYSCORE', K_DUE, '-inf', NOW, 'LIMIT', 0, batch)
local holds, seats, stuck = 0, 0, {}
for _, hid in ipairs(due) do
  local h = load(hid)
  if not h then
    redis.call('ZREM', K_DUE, hid)
  elseif h.status == 'ACTIVE' then
    if h.expire <= NOW then
      seats = seats + expire(h)
      holds = holds + 1
    else
      redis.call('ZADD', K_DUE, h.expire, hid)
    end
  elseif h.status == 'CONFIRMING' then
    if h.deadline <= NOW then
      stuck[#stuck + 1] = ID_PREFIX .. hid
      redis.call('ZADD', K_DUE, NOW + recheck, hid)
    else
      redis.call('ZADD', K_DUE, h.deadline, hid)
    end
  else
    redis.call('ZREM', K_DUE, hid)
  end
end

local old = redis.call('ZRANGEBYSCORE', K_GC, '-inf', NOW, 'LIMIT', 0, batch)
for _, hid in ipairs(old) do
  redis.call('HDEL', K_HOLDS, hid)
  redis.call('ZREM', K_GC, hid)
end

local reply = { holds, seats, #old, (#due >= batch or #old >= batch) and 1 or 0 }
for _, id in ipairs(stuck) do reply[#reply + 1] = id end
return reply
`;
