import { PRELUDE } from './prelude.lua';

/**
 * All-or-none hold. ARGV[4] hid, [5] userId, [6] ttlMs, [7] maxLifetimeMs, [8] maxSeatsPerUser,
 * [9] fencing token, [10..] seat ids.
 * A seat is taken only if it is free, or held by a hold whose expireAt has passed (that hold is
 * expired on the spot, with its SeatExpired records). Replies {'OK', hold} | {'SEATS_UNAVAILABLE',
 * {seatId, reason}...} | {'HOLD_LIMIT_EXCEEDED', held, limit} | {'STALE_FENCING_TOKEN'} (see fence_ok()).
 */
export const CREATE_HOLD = `${PRELUDE}
local hid, user, ttl, lifetime = ARGV[4], ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local limit, token = tonumber(ARGV[8]), tonumber(ARGV[9])
local seats = {}
for i = 10, #ARGV do seats[#seats + 1] = ARGV[i] end

local conflicts, highest = {}, 0
for _, s in ipairs(seats) do
  local state, owner, exp, fence = seat(s)
  if fence > highest then highest = fence end
  if state == 'B' then
    conflicts[#conflicts + 1] = { s, 'BOOKED' }
  elseif state == 'H' and exp > NOW then
    conflicts[#conflicts + 1] = { s, 'HELD' }
  elseif state == 'H' then
    local prev = settle(load(owner))
    -- a CONFIRMING hold keeps its seats past expireAt until the confirm is resolved
    if prev and prev.status == 'CONFIRMING' then conflicts[#conflicts + 1] = { s, 'HELD' } end
  end
end
if #conflicts > 0 then return { 'SEATS_UNAVAILABLE', conflicts } end
if not fence_ok(highest, token) then return { 'STALE_FENCING_TOKEN' } end

-- per-user cap: count the seats of this user's holds that are still live, forgetting the rest
local held, live = 0, {}
for h in string.gmatch(user_holds(user), '[^,]+') do
  local rec = settle(load(h))
  if rec and (rec.status == 'CONFIRMING' or rec.status == 'ACTIVE') then
    held = held + #rec.seats
    live[#live + 1] = h
  end
end
if held + #seats > limit then return { 'HOLD_LIMIT_EXCEEDED', held, limit } end

local h = { hid = hid, user = user, status = 'ACTIVE', seats = seats, created = NOW, expire = NOW + ttl,
            max = NOW + lifetime, ext = 0, fence = token, order = '', ended = 0, deadline = 0 }
if h.expire > h.max then h.expire = h.max end
for _, s in ipairs(seats) do set_seat(s, 'H', hid, h.expire, token) end
save(h)
record_added()
due_add(h.expire, hid)
live[#live + 1] = hid
update_user_holds(user, function() return table.concat(live, ',') end)
return { 'OK', view(h) }
`;
