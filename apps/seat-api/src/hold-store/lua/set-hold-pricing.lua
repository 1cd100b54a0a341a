-- Changes what ARG.userId's hold ARG.hid is priced by (its ticket types and its promo code, as text:
-- apps/seat-api/src/pricing/hold-pricing.ts) from ARG.expected to ARG.pricing. Only an ACTIVE hold's, so a
-- confirm under way (CONFIRMING) books the pricing it began with; an ACTIVE hold past its expireAt is
-- expired now instead, with its SeatExpired records. The record alone changes, not the seats: no seat
-- lock is needed, and a confirm's step that reads the record (begin-confirm.lua) is atomic with it.
-- A record whose pricing is no longer ARG.expected (another change came first) is left as it is:
-- the caller reads the hold again and decides anew, so no change is lost to a concurrent one.
-- Replies {'OK', hold} | {'HOLD_NOT_FOUND'} (also another user's) | {'HOLD_NOT_ACTIVE', hold} |
-- {'PRICING_CHANGED', hold}.
local h = settle(load(ARG.hid))
if not h or h.user ~= ARG.userId then return { 'HOLD_NOT_FOUND' } end
if h.status ~= 'ACTIVE' then return { 'HOLD_NOT_ACTIVE', view(h) } end
if h.pr ~= ARG.expected then return { 'PRICING_CHANGED', view(h) } end
h.pr = ARG.pricing
save(h)
return { 'OK', view(h) }
