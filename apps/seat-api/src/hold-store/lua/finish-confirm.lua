-- Step 2, after the booking committed: ARG.orderId of hold ARG.hid. Seats become BOOKED for good; its
-- HoldConfirmed carries ARG.price, what the booking was sold for (JSON, '' for an unpriced hold).
-- Every caller runs it only once PostgreSQL holds this hold's booking, whose unique (event, seat) key
-- means nobody else booked these seats: the booking wins, whatever Redis thought. A seat held by another
-- hold (which took it after Redis lost it) becomes this hold's booked seat, and that hold loses it
-- (seats.lua own()); a seat already BOOKED under another label (restored by markBooked) stays as it is.
local h = load(ARG.hid)
if not h then return { 'HOLD_NOT_FOUND' } end
if h.status == 'CONFIRMED' and h.order == ARG.orderId then return { 'OK', view(h) } end
if h.status ~= 'CONFIRMING' or h.order ~= ARG.orderId then return { 'HOLD_NOT_ACTIVE', view(h) } end
for _, s in ipairs(h.seats) do
  local state, hid, _, fence = seat(s)
  if state ~= 'B' or hid == h.hid then set_seat(s, 'B', h.hid, 0, fence) end
end
-- its places: held -> booked (places.lua)
places_move(h, -1, 1)
finish(h, 'CONFIRMED')
status_change(SEAT_STATUS.CONFIRMED, h, h.seats, SEAT_STATUS_FIELDS.orderId, h.order,
  SEAT_STATUS_FIELDS.price, ARG.price)
return { 'OK', view(h) }
