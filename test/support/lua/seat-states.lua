-- Every seat of the event that is HELD or BOOKED right now, by a full scan (an oracle for tests: the store
-- never reads every seat). Reply {seatId, 'HELD'|'BOOKED', ...}.
local all = redis.call('HGETALL', K_SEATS)
local out = {}
for i = 1, #all, 2 do
  local v = all[i + 1]
  local c = string.sub(v, 1, 1)
  if c == 'B' then
    out[#out + 1] = all[i]; out[#out + 1] = 'BOOKED'
  elseif c == 'H' then
    local hid, exp = string.match(v, '^H|([^|]*)|(%d+)|')
    local held = tonumber(exp) > NOW
    if not held then
      local h = load(hid)
      held = h ~= nil and h.status == 'CONFIRMING'
    end
    if held then out[#out + 1] = all[i]; out[#out + 1] = 'HELD' end
  end
end
return out
