-- Staff unblock of seats (holds/admin): puts blocked seats (block-seats.lua) back on sale, as one audited
-- staff action (the seats and the action's 'A' in the ledger are one atomic step): ARG.seatIds, fenced by
-- ARG.fencingToken; the action is the manifest's STAFF_ACTION arguments. All or none: {'NOT_BLOCKED', {seatId...}} names the seats that are not blocked, and nothing is
-- written. Replies {'OK'} (also for an action applied already), {'ACTION_CANCELLED'} or
-- {'STALE_FENCING_TOKEN'}.
local mark = staff_mark()
if mark == 'X' then return { 'ACTION_CANCELLED' } end
if mark == 'A' then return { 'OK' } end
local token, seats, missing, highest = tonumber(ARG.fencingToken), ARG.seatIds, {}, 0
for _, s in ipairs(seats) do
  local state, owner, _, fence = seat(s)
  if fence > highest then highest = fence end
  if state ~= 'B' or owner ~= BLOCKED_HID then missing[#missing + 1] = s end
end
if #missing > 0 then return { 'NOT_BLOCKED', missing } end
if not fence_ok(highest, token) then return { 'STALE_FENCING_TOKEN' } end
set_seats(seats, 'F', '', 0, token)
seats_change(SEAT_STATUS.UNBLOCKED, seats, ARG.actionId)
staff_applied()
return { 'OK' }
