-- Step 1 of confirm, before the PostgreSQL write: ARG.orderId of ARG.userId's hold ARG.hid, fenced by
-- ARG.fencingToken, for ARG.confirmTimeoutMs. ACTIVE and unexpired -> CONFIRMING until now + timeout: the sweeper
-- will not expire it meanwhile, and past the deadline the reconciler decides from PostgreSQL.
-- A retry with the same orderId (CONFIRMING or CONFIRMED) answers OK.
-- Refused with {'SEATS_LOST', hold, {seatId, now}...} when some seat is no longer the hold's (booked by
-- someone else, see seats.lua own()): the booking could not be whole. Nothing is written then.
local h = load(ARG.hid)
if not h or h.user ~= ARG.userId then return { 'HOLD_NOT_FOUND' } end
local order, token, timeout = ARG.orderId, tonumber(ARG.fencingToken), tonumber(ARG.confirmTimeoutMs)
if h.status == 'CONFIRMED' or h.status == 'CONFIRMING' then
  if h.order == order then return { 'OK', view(h) } end
  return { 'HOLD_NOT_ACTIVE', view(h) }
end
if h.status == 'ACTIVE' and h.expire <= NOW then
  expire(h)
  return { 'HOLD_EXPIRED', view(h) }
end
if h.status ~= 'ACTIVE' then
  if h.status == 'EXPIRED' then return { 'HOLD_EXPIRED', view(h) } end
  return { 'HOLD_NOT_ACTIVE', view(h) }
end
local lost, highest = lost_seats(h)
if #lost > 0 then return { 'SEATS_LOST', view(h), lost } end
if not fence_ok(highest, token) then return { 'STALE_FENCING_TOKEN', view(h) } end
h.status, h.order, h.fence, h.deadline = 'CONFIRMING', order, token, NOW + timeout
set_seats(h.seats, 'H', h.hid, h.deadline, token)
save(h)
due_add(h.deadline, h.hid)
return { 'OK', view(h) }
