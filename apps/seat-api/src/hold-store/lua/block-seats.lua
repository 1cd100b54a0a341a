-- Staff block of seats (holds/admin): takes them off sale, as one audited staff action: the seats and the
-- action's 'A' in the event's staff-action ledger (hold-lifecycle.lua staff_applied) are one atomic step.
-- ARG.seatIds, fenced by ARG.fencingToken; the action is the manifest's STAFF_ACTION arguments.
-- A blocked seat is 'B' under the hid BLOCKED_HID, which no hold id can be: every hold script already
-- treats it as booked (never held, never confirmed, never freed by a hold's release, expiry or a
-- booking's cancel), and the public map shows it not available, without saying why.
-- All or none: only free seats (or seats of a hold past its expireAt, expired here) are blocked; else
-- {'SEATS_UNAVAILABLE', {seatId, 'HELD'|'BOOKED'|'BLOCKED'}...} and nothing is written (a held seat is
-- released first, a booked one cancelled). Replies {'OK'} (also for an action applied already),
-- {'ACTION_CANCELLED'} or {'STALE_FENCING_TOKEN'}.
local mark = staff_mark()
if mark == 'X' then return { 'ACTION_CANCELLED' } end
if mark == 'A' then return { 'OK' } end
local token, seats, conflicts, highest = tonumber(ARG.fencingToken), ARG.seatIds, {}, 0
for _, s in ipairs(seats) do
  local reason, fence, owner = seat_taken(s, true)
  if fence > highest then highest = fence end
  if reason == 'BOOKED' and owner == BLOCKED_HID then reason = 'BLOCKED' end
  if reason then conflicts[#conflicts + 1] = { s, reason } end
end
if #conflicts > 0 then return { 'SEATS_UNAVAILABLE', conflicts } end
if not fence_ok(highest, token) then return { 'STALE_FENCING_TOKEN' } end
set_seats(seats, 'B', BLOCKED_HID, 0, token)
seats_change(SEAT_STATUS.BLOCKED, seats, ARG.actionId)
staff_applied()
return { 'OK' }
