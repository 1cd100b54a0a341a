-- The lock-free read a busy seat lock asks for: which of the requested seats are taken right now.
-- KEYS[1] the event's seats hash, KEYS[2] its holds (the prefix of its hold buckets), KEYS[3] its meta
-- (same hash tag); ARGV = seat ids.
-- Reply {{seatId, 'HELD'|'BOOKED'}...} in the order asked, by the same rule create-hold.lua uses for
-- its conflict list: BOOKED; HELD while expireAt is in the future (Redis TIME) or while the hold is being
-- confirmed. A lapsed hold is simply not a conflict (this script writes nothing: the next locked hold
-- script expires it).
--
-- Read-only, one HMGET (plus the bucket state and one HGET per lapsed hold), none of the hold helpers
-- and no change-log wrapper: it runs only under contention, in place of waiting, and must stay cheap for
-- a Redis serving a flash sale.
local buckets_read = false
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local values = redis.call('HMGET', KEYS[1], unpack(ARGV))
local out = {}
for i = 1, #ARGV do
  local v = values[i]
  if v then
    local c = string.sub(v, 1, 1)
    if c == 'B' then
      out[#out + 1] = { ARGV[i], 'BOOKED' }
    elseif c == 'H' then
      local hid, exp = string.match(v, '^H|([^|]*)|(%d+)|')
      local held = tonumber(exp) > now
      if not held then
        if not buckets_read then
          hb_use(KEYS[3])
          buckets_read = true
        end
        local raw = redis.call('HGET', KEYS[2] .. ':' .. hb_index(hid), hid)
        held = raw ~= false and cmsgpack.unpack(raw)[2] == HOLD_STATUS.CONFIRMING
      end
      if held then out[#out + 1] = { ARGV[i], 'HELD' } end
    end
  end
end
return out
