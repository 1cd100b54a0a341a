-- Starts a call: its keys and arguments (KEYS / ARGV: EVAL's globals, or the library's per-call locals
-- set by its function wrapper, hold-script.ts), Redis time, and fresh per-call state.
local function begin()
  K_SEATS, K_HOLDS, K_DUE, K_USERS, K_OUTBOX, K_GC = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
  K_FENCE, K_META, K_CHANGES, K_SDUE, K_SGC = KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11]
  EVENT_ID, ID_PREFIX, RETENTION = ARGV[1], ARGV[2], tonumber(ARGV[3])
  local t = redis.call('TIME')
  NOW = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  SHARD_BASE = string.sub(K_SDUE, 1, -4)
  cl_reset()
  HB_READY = false
  USER_FIELDS = {}
  BATCH = false
end
