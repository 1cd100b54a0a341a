-- One confirm attempt's booking was not written and never will be: PostgreSQL holds that attempt's
-- ABANDONED marker (see holds/confirm/confirm-settlement.ts). ARG.hid, ARG.fencingToken: the attempt's
-- token (the one its beginConfirm stored; '' for whichever attempt). Only that attempt is given up: a hold CONFIRMING under
-- another attempt (a newer confirm, begun since) answers HOLD_NOT_ACTIVE and is left alone.
-- CONFIRMING -> ACTIVE again if time is left, else EXPIRED with its SeatExpired records.
local h = load(ARG.hid)
if not h then return { 'HOLD_NOT_FOUND' } end
if h.status ~= 'CONFIRMING' then return { 'HOLD_NOT_ACTIVE', view(h) } end
if ARG.fencingToken ~= '' and h.fence ~= tonumber(ARG.fencingToken) then return { 'HOLD_NOT_ACTIVE', view(h) } end
h.status, h.order, h.deadline = 'ACTIVE', '', 0
if h.expire <= NOW then
  expire(h)
  return { 'OK', view(h) }
end
-- only the seats still its own: one booked meanwhile (markBooked, another hold's booking) stays BOOKED
for _, s in ipairs(held_seats(h)) do
  local _, _, _, fence = seat(s)
  set_seat(s, 'H', h.hid, h.expire, fence)
end
save(h)
due_add(h.expire, h.hid)
return { 'OK', view(h) }
