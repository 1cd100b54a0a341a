-- Staff force release (holds/admin): gives back the seats of a hold, whoever holds it, as one audited
-- staff action. ARGV[4] hid, [5] fencing token, [6] action id, [7] how long the event's staff-action
-- ledger is kept (ms), [8..11] the action's actor, name, target and reason (staff_applied); KEYS[EVENT_SCRIPT_KEYS + 1] that ledger: action id -> 'A' (applied) or 'X' (given
-- up, settle-staff-action.lua). The release and its 'A' are one atomic step, and an action given up is
-- never applied: PostgreSQL's audit entry of the action is settled from this mark alone.
-- Replies {'OK', hold} (also when this action had applied already), {'ACTION_CANCELLED'},
-- {'HOLD_NOT_FOUND'}, {'HOLD_CONFIRMED', hold} (CONFIRMING too: the caller settles the confirm first),
-- {'HOLD_NOT_ACTIVE', hold} (released or expired already: nothing to do) or {'STALE_FENCING_TOKEN', hold}.
local ledger, action = KEYS[EVENT_SCRIPT_KEYS + 1], ARGV[6]
local mark = redis.call('HGET', ledger, action)
if mark == 'X' then return { 'ACTION_CANCELLED' } end
local h = settle(load(ARGV[4]))
if not h then return { 'HOLD_NOT_FOUND' } end
if mark == 'A' then return { 'OK', view(h) } end
if h.status == 'CONFIRMED' or h.status == 'CONFIRMING' then return { 'HOLD_CONFIRMED', view(h) } end
if h.status ~= 'ACTIVE' then return { 'HOLD_NOT_ACTIVE', view(h) } end
local token = tonumber(ARGV[5])
local mine, highest = held_seats(h)
if not fence_ok(highest, token) then return { 'STALE_FENCING_TOKEN', view(h) } end
set_seats(mine, 'F', '', 0, token)
h.fence = token
finish(h, 'RELEASED')
status_change(SEAT_STATUS.RELEASED, h, mine, SEAT_STATUS_FIELDS.reason, RELEASE_REASON.FORCE_RELEASED)
staff_applied(ledger, action, ARGV[7], 8)
return { 'OK', view(h) }
