-- The event's live holds (ACTIVE, lapsed or not, and CONFIRMING), a page of hold buckets at a time: every
-- live hold has its entry in its bucket's due index (hold-index.lua), so ended holds cost nothing here.
-- ARG.fromBucket the first bucket, ARG.maxEntries how many due entries to read at most (whole buckets: a
-- page may read one bucket more). Reads only. Replies {the next bucket or -1 when done, {{holdId, userId, status, {seatId...}}...}}.
-- A bucket split during the walk moves entries to a higher bucket (hold-buckets.lua), which is read later.
buckets_ready()
local b, budget, out = tonumber(ARG.fromBucket), tonumber(ARG.maxEntries), {}
local last = HB_M + HB_P - 1
while b <= last and budget > 0 do
  local hids = redis.call('ZRANGE', K_DUE .. ':' .. b, 0, -1)
  for _, hid in ipairs(hids) do
    local h = load(hid)
    if h and (h.status == 'ACTIVE' or h.status == 'CONFIRMING') then
      out[#out + 1] = { ID_PREFIX .. hid, h.user, h.status, h.seats }
    end
  end
  budget = budget - #hids
  b = b + 1
end
if b > last then b = -1 end
return { b, out }
