import { PRELUDE } from './prelude.lua';

/**
 * One sweeper step for one shard. Declared KEYS are the shard's (see hold-keys.ts): [5] outbox, [7] fence
 * counter, [10] due, [11] gc, [12] events; the per-event positions carry the shard's due key as a
 * placeholder, since use_event() points them at each event this step visits. The event keys are built
 * here from the shard's key (prelude use_event): same {s<k>} hash tag, same Cluster slot, so the whole
 * step is one atomic script on one slot whatever the number of events it visits.
 *
 * ARGV[4] batch size (holds expired or forgotten per step, over all events), [5] ms before a stuck
 * CONFIRMING hold is reported again, [6] events at most removed per step, [7] least ms before an ended
 * event with a live hold is looked at again (else when its last live hold is due).
 *
 *   1. due: the shard's due head (events whose earliest due time passed), then each event's own due
 *      head; each hold is re-checked against Redis time and its status, so a hold extended, released,
 *      re-held or being confirmed since it was indexed is never freed. Then the event's entry in the
 *      shard index is set to its earliest due time (or removed). Cost ~ what is due, never the number of
 *      events, holds or seats. Safe from several callers at once: a hold is expired by one script run.
 *   2. gc: ended holds past their retention are forgotten, the same two-level way.
 *   3. events: an event past its retain-until (start + HOLD_EVENT_RETENTION_SECONDS) with no live hold
 *      (empty due) loses all its keys (UNLINK: freed off Redis's main thread). One that still has a
 *      live hold is looked at again when its last live hold is due.
 *
 * Replies {expiredHolds, expiredSeats, forgottenHolds, removedEvents, more, stuck...}.
 */
export const SWEEP = `${PRELUDE}
local batch, recheck = tonumber(ARGV[4]), tonumber(ARGV[5])
local maxRemoved, eventRecheck = tonumber(ARGV[6]), tonumber(ARGV[7])
local K_SEVENTS = KEYS[12]
local budget = batch
local holds, seats, forgotten, removed, more, stuck = 0, 0, 0, 0, false, {}

-- the event's entry in a shard index follows the head of its own index
local function follow(shardIndex, eventIndex, eventId)
  local head = redis.call('ZRANGE', eventIndex, 0, 0, 'WITHSCORES')
  if head[1] then
    redis.call('ZADD', shardIndex, head[2], eventId)
    if tonumber(head[2]) <= NOW then more = true end
  else
    redis.call('ZREM', shardIndex, eventId)
  end
end

for _, ev in ipairs(redis.call('ZRANGEBYSCORE', K_SDUE, '-inf', NOW, 'LIMIT', 0, batch)) do
  if budget <= 0 then more = true break end
  use_event(ev)
  local due = redis.call('ZRANGEBYSCORE', K_DUE, '-inf', NOW, 'LIMIT', 0, budget)
  budget = budget - #due
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
  follow(K_SDUE, K_DUE, ev)
  log_changes()
  cl_reset()
end

budget = batch
for _, ev in ipairs(redis.call('ZRANGEBYSCORE', K_SGC, '-inf', NOW, 'LIMIT', 0, batch)) do
  if budget <= 0 then more = true break end
  use_event(ev)
  local old = redis.call('ZRANGEBYSCORE', K_GC, '-inf', NOW, 'LIMIT', 0, budget)
  budget = budget - #old
  for _, hid in ipairs(old) do
    redis.call('HDEL', K_HOLDS, hid)
    redis.call('ZREM', K_GC, hid)
  end
  forgotten = forgotten + #old
  follow(K_SGC, K_GC, ev)
end

for _, ev in ipairs(redis.call('ZRANGEBYSCORE', K_SEVENTS, '-inf', NOW, 'LIMIT', 0, maxRemoved)) do
  use_event(ev)
  if redis.call('ZCARD', K_DUE) == 0 then
    redis.call('UNLINK', K_SEATS, K_HOLDS, K_DUE, K_USERS, K_GC, K_META, K_CHANGES)
    redis.call('ZREM', K_SDUE, ev)
    redis.call('ZREM', K_SGC, ev)
    redis.call('ZREM', K_SEVENTS, ev)
    removed = removed + 1
  else
    -- looked at again once its last live hold is due (at least eventRecheck from now)
    local last = redis.call('ZRANGE', K_DUE, -1, -1, 'WITHSCORES')
    local at = NOW + eventRecheck
    if last[2] and tonumber(last[2]) > at then at = tonumber(last[2]) end
    redis.call('ZADD', K_SEVENTS, at, ev)
  end
end

local reply = { holds, seats, forgotten, removed, more and 1 or 0 }
for _, id in ipairs(stuck) do reply[#reply + 1] = id end
return reply
`;
