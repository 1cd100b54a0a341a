-- Repair from PostgreSQL (seat_blocks): marks seats blocked (block-seats.lua), keeping their fencing
-- tokens. ARG.seatIds. The block wins, as a booking does in mark-booked.lua: a hold that held such a
-- seat after Redis lost data loses it. A booked seat is left booked (PostgreSQL never has a seat both
-- booked and blocked: a block refuses a booked seat). Returns how many seats changed. An event whose keys
-- the sweep deleted is not written (event-retention.lua): 0.
if event_removed() then return 0 end
local n = 0
for _, s in ipairs(ARG.seatIds) do
  local state, _, _, fence = seat(s)
  if state ~= 'B' then
    set_seat(s, 'B', BLOCKED_HID, 0, fence)
    n = n + 1
  end
end
return n
