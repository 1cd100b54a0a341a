-- Repair of the event's general-admission areas (places.lua) from PostgreSQL and the live holds, run by
-- EventRepair before anything of the event is served. ARG.areas: for each area its name, capacity, and the
-- places PostgreSQL has booked and blocked in it. `held` is counted afresh from the live holds (ACTIVE,
-- lapsed or not, and CONFIRMING: every live hold has its due entry); booked and blocked never go below
-- what Redis has (a booking finished after PostgreSQL was read is kept), nor below PostgreSQL's: no place
-- is sold twice. Returns how many areas changed. An event whose keys the sweep deleted is not written.
if event_removed() then return 0 end
local held = {}
buckets_ready()
for b = 0, HB_M + HB_P - 1 do
  for _, hid in ipairs(redis.call('ZRANGE', K_DUE .. ':' .. b, 0, -1)) do
    local h = load(hid)
    if h and (h.status == 'ACTIVE' or h.status == 'CONFIRMING') then
      for i = 1, #h.pl, 2 do held[h.pl[i]] = (held[h.pl[i]] or 0) + tonumber(h.pl[i + 1]) end
    end
  end
end
local changed, args = 0, ARG.areas
for i = 1, #args, 4 do
  local name, capacity, booked, blocked = args[i], tonumber(args[i + 1]), tonumber(args[i + 2]), tonumber(args[i + 3])
  local a = area_get(name)
  local now = { capacity, held[name] or 0, booked, blocked }
  if a then now = { capacity, held[name] or 0, math.max(a[3], booked), math.max(a[4], blocked) } end
  if not a or a[1] ~= now[1] or a[2] ~= now[2] or a[3] ~= now[3] or a[4] ~= now[4] then
    AREA_NOW[name] = now
    AREA_DIRTY[name] = true
    AREA_ORDER[#AREA_ORDER + 1] = name
    changed = changed + 1
  end
end
return changed
