-- Read-only. ARGV[4] hid. Replies {'OK', hold} or {'HOLD_NOT_FOUND'}; an unswept expired hold reads EXPIRED.
local h = load(ARGV[4])
if not h then return { 'HOLD_NOT_FOUND' } end
return { 'OK', view(h) }
