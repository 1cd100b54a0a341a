-- Declared after load(), which it needs for a hold this script read but did not save.
local function cl_code(after)
  local state, hid, exp = after[1], after[2], after[3]
  if state == 'F' then return 'A' end
  if state == 'B' then return 'B' end
  local status = CL_STATUS[hid]
  if status == nil then
    local h = load(hid)
    status = h and h.status
  end
  if status == 'CONFIRMING' then return 'H0' end
  return 'H' .. exp
end

local function cl_append(fields)
  local v = meta_add('v', 1)
  if v == 1 then
    -- A new log: the event's first change, or the first since Redis lost the meta hash (FLUSHALL, a
    -- restart without persistence), after which versions start again at 1. A new epoch (Redis TIME, in
    -- microseconds) tells readers that versions they hold are of another log.
    local t = redis.call('TIME')
    redis.call('HSET', K_META, 'e', t[1] .. string.format('%06d', tonumber(t[2])))
  end
  local id = v .. '-0'
  local added = redis.pcall('XADD', K_CHANGES, 'MAXLEN', '~', CHANGE_LOG_MAX_ENTRIES, id, unpack(fields))
  if type(added) == 'table' and added.err then
    -- the log is ahead of the version: the meta hash was lost (and with it the version readers hold).
    -- Readers whose version is above the new one rebuild; the old entries would only mislead them.
    redis.call('DEL', K_CHANGES)
    redis.call('XADD', K_CHANGES, 'MAXLEN', '~', CHANGE_LOG_MAX_ENTRIES, id, unpack(fields))
  end
end

local function log_changes()
  alloc_index_changes() -- the free-seat index, in the same step (allocation-index.lua)
  -- the areas this call changed, one field each in the entry (places.lua): a small frame, not a snapshot
  local fields = areas_flush()
  if #CL_ORDER == 0 then
    if #fields > 0 then cl_append(fields) end
    meta_flush()
    return
  end
  local held, booked = 0, 0
  for _, s in ipairs(CL_ORDER) do
    local before, after = CL_BEFORE[s], CL_AFTER[s]
    if before == 'H' then held = held - 1 elseif before == 'B' then booked = booked - 1 end
    if after[1] == 'H' then held = held + 1 elseif after[1] == 'B' then booked = booked + 1 end
    fields[#fields + 1] = s
    fields[#fields + 1] = cl_code(after)
    if #fields >= 2 * CHANGE_LOG_MAX_SEATS_PER_ENTRY then
      cl_append(fields)
      fields = {}
    end
  end
  if #fields > 0 then cl_append(fields) end
  if held ~= 0 then meta_add('held', held) end
  if booked ~= 0 then meta_add('booked', booked) end
  meta_flush()
end
