-- Gives the seats of ARG.userId's hold ARG.hid back, fenced by ARG.fencingToken. Idempotent: a hold that
-- already ended (released, or expired — swept or not) answers OK with its final state.
-- Frees only the seats the hold still holds: a seat booked by someone else since (seats.lua own()) stays
-- BOOKED, and the release still answers OK: the user gave back everything that was theirs.
local h = settle(load(ARG.hid))
if not h or h.user ~= ARG.userId then return { 'HOLD_NOT_FOUND' } end
if h.status == 'CONFIRMED' or h.status == 'CONFIRMING' then return { 'HOLD_CONFIRMED', view(h) } end
if h.status ~= 'ACTIVE' then return { 'OK', view(h) } end
if not release(h, tonumber(ARG.fencingToken), RELEASE_REASON.RELEASED) then
  return { 'STALE_FENCING_TOKEN', view(h) }
end
return { 'OK', view(h) }
