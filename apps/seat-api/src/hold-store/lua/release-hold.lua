-- Gives the seats back. ARGV[4] hid, [5] userId, [6] fencing token. Idempotent: a hold that already
-- ended (released, or expired — swept or not) answers OK with its final state.
-- Frees only the seats the hold still holds: a seat booked by someone else since (seats.lua own()) stays
-- BOOKED, and the release still answers OK: the user gave back everything that was theirs.
local h = settle(load(ARGV[4]))
if not h or h.user ~= ARGV[5] then return { 'HOLD_NOT_FOUND' } end
if h.status == 'CONFIRMED' or h.status == 'CONFIRMING' then return { 'HOLD_CONFIRMED', view(h) } end
if h.status ~= 'ACTIVE' then return { 'OK', view(h) } end
local token = tonumber(ARGV[6])
local mine, highest = held_seats(h)
if not fence_ok(highest, token) then return { 'STALE_FENCING_TOKEN', view(h) } end
set_seats(mine, 'F', '', 0, token)
h.fence = token
finish(h, 'RELEASED')
status_change(SEAT_STATUS.RELEASED, h, mine, SEAT_STATUS_FIELDS.reason, RELEASE_REASON.RELEASED)
return { 'OK', view(h) }
