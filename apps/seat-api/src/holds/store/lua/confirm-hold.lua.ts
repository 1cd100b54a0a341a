import { PRELUDE } from './prelude.lua';

/**
 * Step 1 of confirm, before the PostgreSQL write. ARGV[4] hid, [5] userId, [6] orderId, [7] fencing
 * token, [8] confirm timeout ms. ACTIVE and unexpired -> CONFIRMING until now + timeout: the sweeper
 * will not expire it meanwhile, and past the deadline the reconciler decides from PostgreSQL.
 * A retry with the same orderId (CONFIRMING or CONFIRMED) answers OK.
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
if stale(h.seats, token) then return { 'STALE_FENCING_TOKEN', view(h) } end
h.status, h.order, h.fence, h.deadline = 'CONFIRMING', order, token, NOW + timeout
for _, s in ipairs(h.seats) do set_seat(s, 'H', h.hid, h.deadline, token) end
save(h)
redis.call('ZADD', K_DUE, h.deadline, h.hid)
return { 'OK', view(h) }
`;

/** Step 2, after the booking committed. ARGV[4] hid, [5] orderId. Seats become BOOKED for good. */
export const FINISH_CONFIRM = `${PRELUDE}
local h = load(ARGV[4])
if not h then return { 'HOLD_NOT_FOUND' } end
if h.status == 'CONFIRMED' and h.order == ARGV[5] then return { 'OK', view(h) } end
if h.status ~= 'CONFIRMING' or h.order ~= ARGV[5] then return { 'HOLD_NOT_ACTIVE', view(h) } end
for _, s in ipairs(h.seats) do
  local _, _, _, fence = seat(s)
  set_seat(s, 'B', h.hid, 0, fence)
end
finish(h, 'CONFIRMED')
return { 'OK', view(h) }
`;

/**
 * The booking was not written (it failed, or the reconciler claimed the hold first). ARGV[4] hid.
 * CONFIRMING -> ACTIVE again if time is left, else EXPIRED with its SeatExpired records.
 */
export const ABANDON_CONFIRM = `${PRELUDE}
local h = load(ARGV[4])
if not h then return { 'HOLD_NOT_FOUND' } end
if h.status ~= 'CONFIRMING' then return { 'HOLD_NOT_ACTIVE', view(h) } end
h.status, h.order, h.deadline = 'ACTIVE', '', 0
if h.expire <= NOW then
  expire(h)
  return { 'OK', view(h) }
end
for _, s in ipairs(h.seats) do
  local _, _, _, fence = seat(s)
  set_seat(s, 'H', h.hid, h.expire, fence)
end
save(h)
redis.call('ZADD', K_DUE, h.expire, h.hid)
return { 'OK', view(h) }
`;
