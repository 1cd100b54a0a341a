-- Staff cancel of a booking (holds/admin): makes its seats available again and records one
-- BookingCancelled in the shard's outbox, in one atomic step with the action's 'A' in the event's
-- staff-action ledger (hold-lifecycle.lua staff_applied): the seats are never freed without their event,
-- nor the event written twice, and PostgreSQL's audit entry of the action is settled from the mark alone.
-- ARG.bookingId, ARG.orderId, ARG.userId (the customer) and ARG.seatIds are the booking's, ARG.hid its
-- hold's; fenced by ARG.fencingToken; the action is the manifest's STAFF_ACTION arguments.
-- A seat is freed only while Redis has it booked for this booking: 'B' under its hold's hid, or 'B' with
-- none (restored from PostgreSQL, mark-booked.lua). A seat in any other state (Redis lost the booking and
-- the seat was taken since) is left as it is and not named in the record. The hold record stays CONFIRMED.
-- Replies {'OK', freed seat ids} ({'OK', {}} for an action applied already: nothing written),
-- {'ACTION_CANCELLED'} (the action was given up) or {'STALE_FENCING_TOKEN'}.
local mark = staff_mark()
if mark == 'X' then return { 'ACTION_CANCELLED' } end
if mark == 'A' then return { 'OK', {} } end
local hid, token = ARG.hid, tonumber(ARG.fencingToken)
local freed, highest = {}, 0
for _, s in ipairs(ARG.seatIds) do
  local state, owner, _, fence = seat(s)
  if state == 'B' and (owner == hid or owner == '') then
    freed[#freed + 1] = s
    if fence > highest then highest = fence end
  end
end
if not fence_ok(highest, token) then return { 'STALE_FENCING_TOKEN' } end
if #freed > 0 then set_seats(freed, 'F', '', 0, token) end
-- its places of general-admission areas (ARG.places "AREA:quantity,...", '' for none) go from booked back
-- to free (places.lua); PostgreSQL's booking counts in the area's booked places until this step
local sold = { pl = {} }
for area, q in string.gmatch(ARG.places, '([^:,]+):(%d+)') do
  sold.pl[#sold.pl + 1] = area
  sold.pl[#sold.pl + 1] = tonumber(q)
end
places_move(sold, 0, -1)
local C = BOOKING_CANCELLED_FIELDS
if #sold.pl > 0 then
  redis.call('XADD', K_OUTBOX, '*', C.type, BOOKING_CANCELLED_TYPE, C.eventId, EVENT_ID,
    C.bookingId, ARG.bookingId, C.holdId, ID_PREFIX .. hid, C.orderId, ARG.orderId, C.userId, ARG.userId,
    C.seatIds, table.concat(freed, ','), C.places, ARG.places, C.cancelledAt, NOW)
else
  redis.call('XADD', K_OUTBOX, '*', C.type, BOOKING_CANCELLED_TYPE, C.eventId, EVENT_ID,
    C.bookingId, ARG.bookingId, C.holdId, ID_PREFIX .. hid, C.orderId, ARG.orderId, C.userId, ARG.userId,
    C.seatIds, table.concat(freed, ','), C.cancelledAt, NOW)
end
staff_applied()
return { 'OK', freed }
