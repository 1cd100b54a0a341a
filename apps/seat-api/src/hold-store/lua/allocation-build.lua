-- Builds the event's free-seat index (allocation-index.lua) from its layout and its seats hash as they
-- are now, in one step: from then on every seat change keeps it. ARGV[4..] five per row: rowKey, seats in
-- the row, rank, section, category. Built once per event (again only if Redis lost it): a second build
-- finds rowinfo and changes nothing. Replies {'OK'} | {'EVENT_ENDED'} (no key is re-created).
if event_ended() then return { 'EVENT_ENDED' } end
local base = alloc_base()
local K_ROWS, K_ROWINFO = base .. 'rows', base .. 'rowinfo'
if redis.call('EXISTS', K_ROWINFO) == 1 then return { 'OK' } end
local CHUNK = 100
local rows, infos, runs = {}, {}, {}
local function flush()
  if #rows > 0 then
    redis.call('HSET', K_ROWS, unpack(rows))
    redis.call('HSET', K_ROWINFO, unpack(infos))
  end
  for q, members in pairs(runs) do
    if #members > 0 then redis.call('ZADD', base .. 'runs:' .. q, unpack(members)) end
  end
  rows, infos, runs = {}, {}, {}
end
for i = 4, #ARGV, 5 do
  local rowKey, n, rank = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2]
  local ids = {}
  for k = 1, n do ids[k] = rowKey .. '-' .. k end
  local values = redis.call('HMGET', K_SEATS, unpack(ids))
  local chars = {}
  for k = 1, n do
    local v = values[k]
    chars[k] = (not v or string.sub(v, 1, 1) == 'F') and '1' or '0'
  end
  local free = table.concat(chars)
  rows[#rows + 1], rows[#rows + 2] = rowKey, free
  infos[#infos + 1], infos[#infos + 2] = rowKey, rank .. '|' .. ARGV[i + 3] .. '|' .. ARGV[i + 4]
  for q = 1, alloc_longest(free) do
    local members = runs[q] or {}
    runs[q] = members
    members[#members + 1], members[#members + 2] = rank, rowKey
  end
  if #rows >= 2 * CHUNK then flush() end
end
flush()
return { 'OK' }
