-- One sweeper step for one shard. The keys that count are the shard's (see hold-keys.ts): KEY.outbox,
-- KEY.fence, KEY.shardDue, KEY.shardGc, KEY.shardEvents; the per-event ones carry the shard's due key as
-- a placeholder, since use_event() points them at each event this step visits. The event keys are built
-- here from the shard's key (hold-index.lua use_event): same {s<k>} hash tag, same Cluster slot, so the whole
-- step is one atomic script on one slot whatever the number of events it visits.
--
-- ARG.batchSize: holds expired or forgotten per step, over all events; ARG.stuckRecheckMs: ms before a
-- stuck CONFIRMING hold is reported again; ARG.maxRemovedEvents: events at most removed per step;
-- ARG.eventRecheckMs: least ms before an ended event with a live hold is looked at again (else when its
-- last live hold is due).
--
--   1. due: the shard's due head (events whose earliest due time passed), then each event's due head
--      (its hold buckets whose earliest due time passed, hold-buckets.lua), then each such bucket's
--      due entries; each hold is re-checked against Redis time and its status, so a hold extended,
--      released, re-held or being confirmed since it was indexed is never freed. Then the bucket's entry
--      in the event's head and the event's entry in the shard index are set to their earliest due times
--      (or removed). Cost ~ what is due, never the number of events, holds or seats. An event's holds
--      are taken earliest first across its buckets and across steps (due_holds), so its SeatExpired
--      records are written in expireAt order. Its writes are batched (write-batch.lua batch_begin /
--      batch_flush): one command per key instead of several per hold, which is what Redis propagates to
--      the AOF and replicas. Safe from several callers at once: a hold is expired by one script run.
--   2. gc: ended holds past their retention are forgotten (shard gc head, then the event's gc index).
--   3. events: an event past its retain-until (start + HOLD_EVENT_RETENTION_SECONDS) with no live hold
--      (empty due head) and no ended hold still kept (empty gc: an ended hold stays readable for
--      HOLD_RETENTION_SECONDS, whenever it ended) loses all its keys (UNLINK: freed off Redis's main
--      thread) and leaves a tombstone in the shard's ended index, so that no later write re-creates them
--      (event-retention.lua); tombstones older than EVENT_TOMBSTONE_KEEP_MS go. One that still has a
--      live or kept hold is looked at again when its last due bucket is due and its last ended hold
--      forgotten.
--
-- Replies {expiredHolds, expiredSeats, forgottenHolds, removedEvents, more, stuck...}.
local batch, recheck = tonumber(ARG.batchSize), tonumber(ARG.stuckRecheckMs)
local maxRemoved, eventRecheck = tonumber(ARG.maxRemovedEvents), tonumber(ARG.eventRecheckMs)
local K_SEVENTS = KEY.shardEvents
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

-- The due holds of the current event, at most budget: exactly its budget earliest (ties in any order), so
-- one event's holds are expired, and their SeatExpired records written, in expireAt order across steps too
-- (the relay keeps that order to Kafka). A bucket's entry in the head is never later than its earliest
-- entry (ZADD LT; removals may leave it earlier), so buckets are read in head order, each up to the
-- cutoff: NOW, or once budget entries are collected, the latest of the budget earliest. A bucket whose
-- head is past the cutoff, and every bucket after it, holds nothing that comes before: the read stops
-- there. With nothing backed up (the usual case: the sweeper runs every second) every due bucket is read
-- once, as before; a backlog costs a few more bucket reads per step, never a read of the whole backlog.
-- When the head list itself is cut at budget buckets, no entry past the last head read is taken.
local function by_due(x, y) return x[1] < y[1] or (x[1] == y[1] and x[2] < y[2]) end
local function due_holds()
  local heads = redis.call('ZRANGEBYSCORE', K_DUE, '-inf', NOW, 'WITHSCORES', 'LIMIT', 0, budget)
  local cutoff = NOW
  if #heads >= 2 * budget then
    cutoff = tonumber(heads[#heads])
    more = true
  end
  local due, visited = {}, {}
  for i = 1, #heads, 2 do
    if tonumber(heads[i + 1]) > cutoff then break end
    local b = heads[i]
    local sub = K_DUE .. ':' .. b
    local got = redis.call('ZRANGEBYSCORE', sub, '-inf', cutoff, 'WITHSCORES', 'LIMIT', 0, budget)
    for j = 1, #got, 2 do due[#due + 1] = { tonumber(got[j + 1]), got[j], sub } end
    visited[#visited + 1] = b
    if #due >= budget then
      table.sort(due, by_due)
      while #due > budget do due[#due] = nil end
      cutoff = due[#due][1]
      more = true
    end
  end
  table.sort(due, by_due)
  return due, visited
end

for _, ev in ipairs(redis.call('ZRANGEBYSCORE', K_SDUE, '-inf', NOW, 'LIMIT', 0, batch)) do
  if budget <= 0 then more = true break end
  use_event(ev)
  local due, visited = due_holds()
  budget = budget - #due
  batch_begin()
  for _, it in ipairs(due) do
    local hid, sub = it[2], it[3]
    local h = load(hid)
    if not h then
      redis.call('ZREM', sub, hid)
    elseif h.status == 'ACTIVE' then
      if h.expire <= NOW then
        seats = seats + expire(h)
        holds = holds + 1
      else
        redis.call('ZADD', sub, h.expire, hid)
      end
    elseif h.status == 'CONFIRMING' then
      if h.deadline <= NOW then
        stuck[#stuck + 1] = ID_PREFIX .. hid
        redis.call('ZADD', sub, NOW + recheck, hid)
      else
        redis.call('ZADD', sub, h.deadline, hid)
      end
    else
      redis.call('ZREM', sub, hid)
    end
  end
  batch_flush()
  for _, b in ipairs(visited) do follow(K_DUE, K_DUE .. ':' .. b, b) end
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
  -- one HDEL per bucket and one ZREM, not two commands per hold (see write-batch.lua)
  local byBucket, records = {}, 0
  for _, hid in ipairs(old) do
    local hids = table_at(byBucket, holds_key(hid))
    hids[#hids + 1] = hid
  end
  for key, hids in pairs(byBucket) do records = records + write_list('HDEL', key, hids) end
  write_list('ZREM', K_GC, old)
  if records > 0 then redis.call('HINCRBY', K_META, 'hn', -records) end
  forgotten = forgotten + #old
  follow(K_SGC, K_GC, ev)
end

local K_SENDED = SHARD_BASE .. 'ended'
for _, ev in ipairs(redis.call('ZRANGEBYSCORE', K_SEVENTS, '-inf', NOW, 'LIMIT', 0, maxRemoved)) do
  use_event(ev)
  -- nothing live (due) and nothing kept (gc: ended holds stay readable HOLD_RETENTION_SECONDS)
  if redis.call('ZCARD', K_DUE) == 0 and redis.call('ZCARD', K_GC) == 0 then
    -- every bucket's keys (due:<b> are empty, hence gone, when the head is: listed in case)
    buckets_ready()
    local keys = { K_SEATS, K_DUE, K_USERS, K_GC, K_CHANGES, areas_key(), unpack(alloc_keys()) }
    for _, k in ipairs(q_keys()) do keys[#keys + 1] = k end
    for b = 0, HB_M + HB_P - 1 do
      keys[#keys + 1] = K_HOLDS .. ':' .. b
      keys[#keys + 1] = K_DUE .. ':' .. b
      if #keys >= 1000 then
        redis.call('UNLINK', unpack(keys))
        keys = {}
      end
    end
    keys[#keys + 1] = K_META
    redis.call('UNLINK', unpack(keys))
    redis.call('ZREM', K_SDUE, ev)
    redis.call('ZREM', K_SGC, ev)
    redis.call('ZREM', K_SEVENTS, ev)
    -- the tombstone: no later write re-creates the keys (event-retention.lua)
    redis.call('ZADD', K_SENDED, NOW, ev)
    removed = removed + 1
  else
    -- over for good (event-retention.lua event_ended), though its entry below moves ahead; looked at
    -- again once its last bucket is due and its last ended hold forgotten (at least eventRecheck from now)
    redis.call('HSET', K_META, 'over', '1')
    local at = NOW + eventRecheck
    for _, index in ipairs({ K_DUE, K_GC }) do
      local last = redis.call('ZRANGE', index, -1, -1, 'WITHSCORES')
      if last[2] and tonumber(last[2]) > at then at = tonumber(last[2]) end
    end
    redis.call('ZADD', K_SEVENTS, at, ev)
  end
end
if removed > 0 then
  redis.call('ZREMRANGEBYSCORE', K_SENDED, '-inf', NOW - EVENT_TOMBSTONE_KEEP_MS)
end

local reply = { holds, seats, forgotten, removed, more and 1 or 0 }
for _, id in ipairs(stuck) do reply[#reply + 1] = id end
return reply
