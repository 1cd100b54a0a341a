-- Staff force release (holds/admin): gives back the seats of hold ARG.hid, whoever holds it, fenced by
-- ARG.fencingToken, as one audited staff action (the manifest's STAFF_ACTION arguments; KEY.staffLedger).
-- The release and the action's 'A' in the ledger are one atomic step, and an action given up ('X',
-- settle-staff-action.lua) is never applied: PostgreSQL's audit entry of the action is settled from this
-- mark alone.
-- Replies {'OK', hold} (also when this action had applied already), {'ACTION_CANCELLED'},
-- {'HOLD_NOT_FOUND'}, {'HOLD_CONFIRMED', hold} (CONFIRMING too: the caller settles the confirm first),
-- {'HOLD_NOT_ACTIVE', hold} (released or expired already: nothing to do) or {'STALE_FENCING_TOKEN', hold}.
local mark = staff_mark()
if mark == 'X' then return { 'ACTION_CANCELLED' } end
local h = settle(load(ARG.hid))
if not h then return { 'HOLD_NOT_FOUND' } end
if mark == 'A' then return { 'OK', view(h) } end
if h.status == 'CONFIRMED' or h.status == 'CONFIRMING' then return { 'HOLD_CONFIRMED', view(h) } end
if h.status ~= 'ACTIVE' then return { 'HOLD_NOT_ACTIVE', view(h) } end
if not release(h, tonumber(ARG.fencingToken), RELEASE_REASON.FORCE_RELEASED) then
  return { 'STALE_FENCING_TOKEN', view(h) }
end
staff_applied()
return { 'OK', view(h) }
