-- Staff unblock of seats (holds/admin): puts blocked seats (block-seats.lua) back on sale, as one audited
-- staff action (the seats and the action's 'A' in the ledger are one atomic step). ARGV[4] fencing token,
-- [5] action id, [6] how long the ledger is kept (ms), [7..10] the action's actor, name, target and reason
-- (staff_applied), [11..] seat ids; KEYS[EVENT_SCRIPT_KEYS + 1] the
-- ledger. All or none: {'NOT_BLOCKED', {seatId...}} names the seats that are not blocked, and nothing is
-- written. Replies {'OK'} (also for an action applied already), {'ACTION_CANCELLED'} or
-- {'STALE_FENCING_TOKEN'}.
local ledger, action = KEYS[EVENT_SCRIPT_KEYS + 1], ARGV[5]
local mark = redis.call('HGET', ledger, action)
if mark == 'X' then return { 'ACTION_CANCELLED' } end
if mark == 'A' then return { 'OK' } end
local token, seats, missing, highest = tonumber(ARGV[4]), {}, {}, 0
for i = 11, #ARGV do
  local state, owner, _, fence = seat(ARGV[i])
  seats[#seats + 1] = ARGV[i]
  if fence > highest then highest = fence end
  if state ~= 'B' or owner ~= BLOCKED_HID then missing[#missing + 1] = ARGV[i] end
end
if #missing > 0 then return { 'NOT_BLOCKED', missing } end
if not fence_ok(highest, token) then return { 'STALE_FENCING_TOKEN' } end
set_seats(seats, 'F', '', 0, token)
seats_change(SEAT_STATUS.UNBLOCKED, seats, action)
staff_applied(ledger, action, ARGV[6], 7)
return { 'OK' }
