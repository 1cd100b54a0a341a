-- Write batching, for the shard sweep's many holds of one event (batch_begin() .. batch_flush()): seat
-- values, hold records, user-index fields, due removals and gc entries are kept in tables, read back by
-- seat(), load() and user_entry() (the script sees its own writes), and written at the flush as one
-- command per key. Inside a script each redis.call that writes is a command Redis propagates on its own
-- (AOF, every replica): expiring 100 holds of an event one write at a time is some 700 commands, batched
-- it is the 100 outbox records and about a dozen more. Off (BATCH false) every write goes out at once.
local BATCH, B_SEATS, B_RECORDS, B_USERS, B_DUE_REM, B_GC, B_SGC = false
-- map[key], a new table the first time
local function table_at(map, key)
  local t = map[key]
  if not t then
    t = {}
    map[key] = t
  end
  return t
end
local function batch_begin()
  BATCH, B_SEATS, B_RECORDS, B_USERS, B_DUE_REM, B_GC, B_SGC = true, {}, {}, {}, {}, {}, nil
end
-- "command key list..." in chunks of BATCH_CHUNK arguments (Lua's unpack has a stack limit; even, so a
-- chunk never splits a field/value or score/member pair); returns the sum of the replies (HDEL, ZREM: how
-- many went).
local BATCH_CHUNK = 500
local function write_list(command, key, list)
  local n = 0
  for from = 1, #list, BATCH_CHUNK do
    n = n + redis.call(command, key, unpack(list, from, math.min(from + BATCH_CHUNK - 1, #list)))
  end
  return n
end
local function write_pairs(command, key, map)
  local args = {}
  for field, value in pairs(map) do
    args[#args + 1] = field
    args[#args + 1] = value
  end
  write_list(command, key, args)
end
local function batch_flush()
  if not BATCH then return end
  BATCH = false
  write_pairs('HSET', K_SEATS, B_SEATS)
  for key, records in pairs(B_RECORDS) do write_pairs('HSET', key, records) end
  local set, gone = {}, {}
  for field, all in pairs(B_USERS) do
    if all == '' then gone[#gone + 1] = field else set[field] = all end
  end
  write_pairs('HSET', K_USERS, set)
  write_list('HDEL', K_USERS, gone)
  for b, hids in pairs(B_DUE_REM) do
    local sub = K_DUE .. ':' .. b
    write_list('ZREM', sub, hids)
    if redis.call('EXISTS', sub) == 0 then redis.call('ZREM', K_DUE, b) end
  end
  write_list('ZADD', K_GC, B_GC)
  if B_SGC then redis.call('ZADD', K_SGC, 'LT', B_SGC, EVENT_ID) end
end

