-- Builds the event's free-seat index (allocation-index.lua) from its layout and its seats hash as they
-- are now. ARG.orphanRule the event's orphan rule ('none' or 'no-single-gaps'), ARG.complete '1' when
-- this call completes the index, ARG.rows six values per row: rowKey, seats in the row, rank, section,
-- category, and its access string ('a' a wheelchair place, 'c' a companion seat, '.' neither, by seat number; '' for none).
-- A large event is built in several calls (each blocks Redis for its rows only): a row already in the
-- index is kept as it is (every seat change since keeps it right), so calls may overlap or repeat, and
-- the index counts as built (meta `ax`) only once the last call is done. Replies {'OK'} |
-- {'EVENT_ENDED'} (no key is re-created).
if event_ended() then return { 'EVENT_ENDED' } end
local base = alloc_base()
local K_ROWS, K_ROWINFO = base .. 'rows', base .. 'rowinfo'
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
local R = ARG.rows
for i = 1, #R, 6 do
  local rowKey, n, rank = R[i], tonumber(R[i + 1]), R[i + 2]
  if redis.call('HEXISTS', K_ROWS, rowKey) == 0 then
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
    local access = R[i + 5]
    infos[#infos + 1], infos[#infos + 2] = rowKey, rank .. '|' .. R[i + 3] .. '|' .. access .. '|' .. R[i + 4]
    if string.find(access, 'a', 1, true) then redis.call('ZADD', base .. 'acc', rank, rowKey) end
    for q = 1, alloc_longest(free) do
      local members = runs[q] or {}
      runs[q] = members
      members[#members + 1], members[#members + 2] = rank, rowKey
    end
    if #rows >= 2 * CHUNK then flush() end
  end
end
flush()
-- the rule only where no policy version put one (policy-version.lua): this build's may be older than a
-- change made while it ran
if ARG.complete == '1' then
  redis.call('HSET', K_META, 'ax', '1')
  redis.call('HSETNX', K_META, 'or', ARG.orphanRule)
end
return { 'OK' }
