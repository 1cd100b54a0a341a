-- Whether each hold of ARG.hids is being confirmed: 'CONFIRMING' when its record's status code (second
-- field, hold-records.lua) says so, else '' (any other status, or a hold that is gone): a snapshot build asks
-- it only for held seats that may belong to a confirm in flight (seat-change-log.ts).
hb_use(KEY.meta)
local out = {}
for i, hid in ipairs(ARG.hids) do
  local raw = redis.call('HGET', KEY.holds .. ':' .. hb_index(hid), hid)
  out[i] = (raw and cmsgpack.unpack(raw)[2] == HOLD_STATUS.CONFIRMING) and 'CONFIRMING' or ''
end
return out
