-- Staff cancel of a booking (holds/admin): makes its seats available again and records one
-- BookingCancelled in the shard's outbox, in one atomic step with the action's 'A' in the event's
-- staff-action ledger (force-release.lua): the seats are never freed without their event, nor the event
-- written twice, and PostgreSQL's audit entry of the action is settled from the mark alone.
-- ARGV[4] hid of the booking's hold, [5] fencing token, [6] action id, [7] how long the ledger is kept
-- (ms), [8..11] the action's actor, name, target and reason (staff_applied), [12] booking id, [13] order
-- id, [14] the customer's user id, [15..] the booking's seat ids;
-- KEYS[EVENT_SCRIPT_KEYS + 1] the ledger.
-- A seat is freed only while Redis has it booked for this booking: 'B' under its hold's hid, or 'B' with
-- none (restored from PostgreSQL, mark-booked.lua). A seat in any other state (Redis lost the booking and
-- the seat was taken since) is left as it is and not named in the record. The hold record stays CONFIRMED.
-- Replies {'OK', freed seat ids} ({'OK', {}} for an action applied already: nothing written),
-- {'ACTION_CANCELLED'} (the action was given up) or {'STALE_FENCING_TOKEN'}.
local ledger, action = KEYS[EVENT_SCRIPT_KEYS + 1], ARGV[6]
local mark = redis.call('HGET', ledger, action)
if mark == 'X' then return { 'ACTION_CANCELLED' } end
if mark == 'A' then return { 'OK', {} } end
local hid, token = ARGV[4], tonumber(ARGV[5])
local freed, highest = {}, 0
for i = 15, #ARGV do
  local state, owner, _, fence = seat(ARGV[i])
  if state == 'B' and (owner == hid or owner == '') then
    freed[#freed + 1] = ARGV[i]
    if fence > highest then highest = fence end
  end
end
if not fence_ok(highest, token) then return { 'STALE_FENCING_TOKEN' } end
if #freed > 0 then set_seats(freed, 'F', '', 0, token) end
local C = BOOKING_CANCELLED_FIELDS
redis.call('XADD', K_OUTBOX, '*', C.type, BOOKING_CANCELLED_TYPE, C.eventId, EVENT_ID,
  C.bookingId, ARGV[12], C.holdId, ID_PREFIX .. hid, C.orderId, ARGV[13], C.userId, ARGV[14],
  C.seatIds, table.concat(freed, ','), C.cancelledAt, NOW)
staff_applied(ledger, action, ARGV[7], 8)
return { 'OK', freed }
