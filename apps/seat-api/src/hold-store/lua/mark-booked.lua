-- Repair from PostgreSQL: marks seats BOOKED (keeps their fencing tokens). ARG.seatIds.
-- The booking wins. A seat not yet BOOKED becomes 'B' with no hold id: the booking's hold is not known
-- here, and keeping the id of a hold that merely held the seat would let that hold's extend, release or
-- expiry take the seat back. A live hold that held it thus loses it (seats.lua own()): its extend and
-- confirm answer SEATS_LOST, its release and expiry leave the seat BOOKED. A CONFIRMING hold whose own
-- booking this is still finishes (FINISH_CONFIRM accepts booked seats). Returns how many seats changed.
-- An event whose keys the sweep deleted is not written (event-retention.lua): 0.
if event_removed() then return 0 end
local n = 0
for _, s in ipairs(ARG.seatIds) do
  local state, _, _, fence = seat(s)
  if state ~= 'B' then
    set_seat(s, 'B', '', 0, fence)
    n = n + 1
  end
end
return n
