-- Staff block of seats (holds/admin): takes them off sale, as one audited staff action: the seats and the
-- action's 'A' in the event's staff-action ledger (force-release.lua) are one atomic step.
-- ARGV[4] fencing token, [5] action id, [6] how long the ledger is kept (ms), [7..10] the action's actor,
-- name, target and reason (staff_applied), [11..] seat ids;
-- KEYS[EVENT_SCRIPT_KEYS + 1] the ledger.
-- A blocked seat is 'B' under the hid BLOCKED_HID, which no hold id can be: every hold script already
-- treats it as booked (never held, never confirmed, never freed by a hold's release, expiry or a
-- booking's cancel), and the public map shows it not available, without saying why.
-- All or none: only free seats (or seats of a hold past its expireAt, expired here) are blocked; else
-- {'SEATS_UNAVAILABLE', {seatId, 'HELD'|'BOOKED'|'BLOCKED'}...} and nothing is written (a held seat is
-- released first, a booked one cancelled). Replies {'OK'} (also for an action applied already),
-- {'ACTION_CANCELLED'} or {'STALE_FENCING_TOKEN'}.
local ledger, action = KEYS[EVENT_SCRIPT_KEYS + 1], ARGV[5]
local mark = redis.call('HGET', ledger, action)
if mark == 'X' then return { 'ACTION_CANCELLED' } end
if mark == 'A' then return { 'OK' } end
local token, seats, conflicts, highest = tonumber(ARGV[4]), {}, {}, 0
for i = 11, #ARGV do
  local s = ARGV[i]
  seats[#seats + 1] = s
  local state, owner, exp, fence = seat(s)
  if fence > highest then highest = fence end
  if state == 'B' then
    conflicts[#conflicts + 1] = { s, owner == BLOCKED_HID and 'BLOCKED' or 'BOOKED' }
  elseif state == 'H' and exp > NOW then
    conflicts[#conflicts + 1] = { s, 'HELD' }
  elseif state == 'H' then
    local prev = settle(load(owner))
    if prev and prev.status == 'CONFIRMING' then conflicts[#conflicts + 1] = { s, 'HELD' } end
  end
end
if #conflicts > 0 then return { 'SEATS_UNAVAILABLE', conflicts } end
if not fence_ok(highest, token) then return { 'STALE_FENCING_TOKEN' } end
set_seats(seats, 'B', BLOCKED_HID, 0, token)
seats_change(SEAT_STATUS.BLOCKED, seats, action)
staff_applied(ledger, action, ARGV[6], 7)
return { 'OK' }
