-- The event's bucket state (hold-buckets.lua) is read from meta once per call (per event, for the
-- shard sweep), at first need: a call that touches no hold record does not read it.
local HB_READY = false
local function buckets_ready()
  if not HB_READY then
    hb_use(K_META)
    HB_READY = true
  end
end
-- The event's keys from the shard's: "<prefix>hold:{s<k>}:due" -> "<prefix>hold:{s<k>}:<eventId>:seats"...
-- Same {s<k>} tag as the shard keys this script declared: the same Cluster slot.
local function use_event(eventId)
  local base = SHARD_BASE .. eventId .. ':'
  K_SEATS, K_HOLDS, K_DUE, K_USERS = base .. 'seats', base .. 'holds', base .. 'due', base .. 'users'
  K_GC, K_META, K_CHANGES = base .. 'gc', base .. 'meta', base .. 'changes'
  EVENT_ID, ID_PREFIX = eventId, (string.gsub(eventId, '-', ''))
  HB_READY = false
end

-- The hold's bucket: its record is in holds:<b>, its due entry in due:<b>.
local function bucket(hid)
  buckets_ready()
  return hb_index(hid)
end
local function holds_key(hid)
  return K_HOLDS .. ':' .. bucket(hid)
end

-- Two levels inside the event: due:<b> holds hid -> due time, the head K_DUE holds b -> (at most) the
-- earliest due time of due:<b>. Every entry also lowers the bucket's entry in the head and the event's
-- entry in the shard's index (ZADD LT adds a missing member): the shard sweep finds the event, and the
-- bucket, no later than its first due hold. Removals leave the times as they are (early is harmless: the
-- sweep sets them right when it visits).
-- Returns whether the event's entry in the shard's index was added or lowered: only then can the shard
-- have work sooner than the wake index says (hold-keys.ts, WAKE_KEY), which the caller then lowers too.
local function due_add(score, hid)
  local b = bucket(hid)
  redis.call('ZADD', K_DUE .. ':' .. b, score, hid)
  redis.call('ZADD', K_DUE, 'LT', score, b)
  return redis.call('ZADD', K_SDUE, 'LT', 'CH', score, EVENT_ID) == 1
end
-- A bucket left empty leaves the head too: an empty head means no live hold (the event may be removed).
local function due_remove(hid)
  local b = bucket(hid)
  if BATCH then
    local hids = table_at(B_DUE_REM, b)
    hids[#hids + 1] = hid
    return
  end
  local sub = K_DUE .. ':' .. b
  if redis.call('ZREM', sub, hid) == 1 and redis.call('EXISTS', sub) == 0 then redis.call('ZREM', K_DUE, b) end
end

