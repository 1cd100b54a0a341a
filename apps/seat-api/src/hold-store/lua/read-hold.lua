-- Read-only: hold ARG.hid. Replies {'OK', hold} or {'HOLD_NOT_FOUND'}; an unswept expired hold reads EXPIRED.
local h = load(ARG.hid)
if not h then return { 'HOLD_NOT_FOUND' } end
return { 'OK', view(h) }
