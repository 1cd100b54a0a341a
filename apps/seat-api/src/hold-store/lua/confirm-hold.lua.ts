import { PRELUDE } from './prelude.lua';

/**
 * Step 1 of confirm, before the PostgreSQL write. ARGV[4] hid, [5] userId, [6] orderId, [7] fencing
 * token, [8] confirm timeout ms. ACTIVE and unexpired -> CONFIRMING until now + timeout: the sweeper
 * will not expire it meanwhile, and past the deadline the reconciler decides from PostgreSQL.
 * A retry with the same orderId (CONFIRMING or CONFIRMED) answers OK.
 * Refused with {'SEATS_LOST', hold, {seatId, now}...} when some seat is no longer the hold's (booked by
 * someone else, see prelude own()): the booking could not be whole. Nothing is written then.
 */
export const BEGIN_CONFIRM = `${PRELUDE}
local h = load(ARGV[4])
if not h or h.user ~= ARGV[5] then return { 'HOLD_NOT_FOUND' } end
local order, token, timeout = ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[8])
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
`;

/**
 * Step 2, after the booking committed. ARGV[4] hid, [5] orderId. Seats become BOOKED for good.
 * Every caller runs it only once PostgreSQL holds this hold's booking, whose unique (event, seat) key
 * means nobody else booked these seats: the booking wins, whatever Redis thought. A seat held by another
 * hold (which took it after Redis lost it) becomes this hold's booked seat, and that hold loses it
 * (prelude own()); a seat already BOOKED under another label (restored by markBooked) stays as it is.
 */
export const FINISH_CONFIRM = `${PRELUDE}
local h = load(ARGV[4])
if not h then return { 'HOLD_NOT_FOUND' } end
if h.status == 'CONFIRMED' and h.order == ARGV[5] then return { 'OK', view(h) } end
if h.status ~= 'CONFIRMING' or h.order ~= ARGV[5] then return { 'HOLD_NOT_ACTIVE', view(h) } end
for _, s in ipairs(h.seats) do
  local state, hid, _, fence = seat(s)
  if state ~= 'B' or hid == h.hid then set_seat(s, 'B', h.hid, 0, fence) end
end
finish(h, 'CONFIRMED')
return { 'OK', view(h) }
`;

/**
 * One confirm attempt's booking was not written and never will be: PostgreSQL holds that attempt's
 * ABANDONED marker (see holds/confirm/confirm-settlement.ts). ARGV[4] hid, [5] the attempt's fencing
 * token (the token its beginConfirm stored). Only that attempt is given up: a hold CONFIRMING under
 * another attempt (a newer confirm, begun since) answers HOLD_NOT_ACTIVE and is left alone.
 * CONFIRMING -> ACTIVE again if time is left, else EXPIRED with its SeatExpired records.
 */
export const ABANDON_CONFIRM = `${PRELUDE}
local h = load(ARGV[4])
if not h then return { 'HOLD_NOT_FOUND' } end
if h.status ~= 'CONFIRMING' then return { 'HOLD_NOT_ACTIVE', view(h) } end
if ARGV[5] and h.fence ~= tonumber(ARGV[5]) then return { 'HOLD_NOT_ACTIVE', view(h) } end
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
`;
