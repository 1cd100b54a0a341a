-- The lock-free read a busy seat lock asks for: which of ARG.seatIds are taken right now, by the rule a
-- hold applies (seat_taken, hold-growth.lua) but writing nothing: a hold whose time ran out is simply not
-- a conflict (the next locked hold script expires it).
-- Reply {{seatId, 'HELD'|'BOOKED'}...} in the order asked.
local out = {}
for _, s in ipairs(ARG.seatIds) do
  local reason = seat_taken(s, false)
  if reason then out[#out + 1] = { s, reason } end
end
return out
