-- Staff block (ARG.mode 'block') or unblock ('unblock') of ARG.quantity places of general-admission area
-- ARG.area (places.lua), as one audited staff action: the area's blocked count and the action's 'A' in the
-- event's staff-action ledger (hold-lifecycle.lua staff_applied) are one atomic step; the action is the
-- manifest's STAFF_ACTION arguments. No seat lock: the step alone decides, as for a hold of places.
-- A block takes free places only (lapsed holds are expired first): {'SOLD_OUT', free} otherwise; an unblock
-- gives back at most what is blocked: {'NOT_BLOCKED', blocked} otherwise; nothing is written then. An area
-- Redis does not have yet (not repaired) is {'SOLD_OUT', 0}. Replies {'OK'} (also for an action applied
-- already) or {'ACTION_CANCELLED'}.
local mark = staff_mark()
if mark == 'X' then return { 'ACTION_CANCELLED' } end
if mark == 'A' then return { 'OK' } end
local area, q = ARG.area, tonumber(ARG.quantity)
if ARG.mode == 'block' then
  local refusal = places_refusal({ area, q })
  if refusal then return { 'SOLD_OUT', refusal[2][1][2] } end
  area_add(area, 0, 0, q)
else
  local a = area_get(area)
  if not a or a[4] < q then return { 'NOT_BLOCKED', a and a[4] or 0 } end
  area_add(area, 0, 0, -q)
end
staff_applied()
return { 'OK' }
