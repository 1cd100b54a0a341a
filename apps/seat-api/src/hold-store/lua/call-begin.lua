-- Starts a call: the event's keys and arguments (KEY, ARG: read by name by the function wrapper,
-- hold-script.ts), Redis time, and fresh per-call state.
local function begin()
  K_SEATS, K_HOLDS, K_DUE, K_USERS, K_OUTBOX, K_GC = KEY.seats, KEY.holds, KEY.due, KEY.users, KEY.outbox, KEY.gc
  K_FENCE, K_META, K_CHANGES, K_SDUE, K_SGC = KEY.fence, KEY.meta, KEY.changes, KEY.shardDue, KEY.shardGc
  EVENT_ID, ID_PREFIX, RETENTION = ARG.eventId, ARG.holdIdPrefix, tonumber(ARG.retentionMs)
  local t = redis.call('TIME')
  NOW = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  SHARD_BASE = string.sub(K_SDUE, 1, -4)
  cl_reset()
  HB_READY = false
  USER_FIELDS = {}
  BATCH = false
end
