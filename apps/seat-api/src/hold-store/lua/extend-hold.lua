-- New expiry = now + ARG.ttlMs for ARG.userId's hold ARG.hid, at most ARG.maxExtensions times, fenced
-- by ARG.fencingToken.
-- Refused past the lifetime cap (createdAt + cap) or the extension count cap, so nobody holds forever.
-- Refused with {'SEATS_LOST', hold, {seatId, now}...} when some seat is no longer the hold's (booked by
-- someone else, see seats.lua own()): extending would turn a booked seat back into a held one. Nothing
-- is written then; the hold keeps the seats it still has until it is released or expires.
-- ARG.requestKey names the request ('' for none; the API passes a digest of its Idempotency-Key): the record keeps
-- the name of its last extension, and the same name again is that extension retried (its answer was lost,
-- or was 503 because the replicas did not confirm it in time), answered with the hold as it left it: a
-- retry never spends another extension.
local h = settle(load(ARG.hid))
if not h or h.user ~= ARG.userId then return { 'HOLD_NOT_FOUND' } end
if h.status ~= 'ACTIVE' then return { 'HOLD_NOT_ACTIVE', view(h) } end
local request = ARG.requestKey
if request ~= '' and h.xkey == request then return { 'OK', view(h) } end
if h.ext >= tonumber(ARG.maxExtensions) then return { 'EXTENSION_LIMIT_REACHED', view(h) } end
local expire = NOW + tonumber(ARG.ttlMs)
if expire > h.max then return { 'HOLD_LIFETIME_EXCEEDED', view(h) } end
local lost, highest = lost_seats(h)
if #lost > 0 then return { 'SEATS_LOST', view(h), lost } end
local token = tonumber(ARG.fencingToken)
if not fence_ok(highest, token) then return { 'STALE_FENCING_TOKEN', view(h) } end
set_seats(h.seats, 'H', h.hid, expire, token)
h.expire, h.ext, h.fence, h.xkey = expire, h.ext + 1, token, request
save(h)
due_add(expire, h.hid)
status_change(SEAT_STATUS.EXTENDED, h, h.seats, SEAT_STATUS_FIELDS.expireAt, expire,
  SEAT_STATUS_FIELDS.extension, h.ext)
return { 'OK', view(h) }
