-- Whether each hold ARGV[1..] is being confirmed: 'CONFIRMING' when its record's status code (second
-- field, hold-records.lua) says so, else '' (any other status, or a hold that is gone): a snapshot build asks
-- it only for held seats that may belong to a confirm in flight (seat-change-log.ts).
hb_use(KEYS[1])
local out = {}
for i = 1, #ARGV do
  local raw = redis.call('HGET', KEYS[4] .. ':' .. hb_index(ARGV[i]), ARGV[i])
  out[i] = (raw and cmsgpack.unpack(raw)[2] == HOLD_STATUS.CONFIRMING) and 'CONFIRMING' or ''
end
return out
