-- All-or-none hold of ARG.seatIds and ARG.places for ARG.userId, under the terms the manifest's HOLD_TERMS name (ARG.ttlMs,
-- the event policy version the caller checked it against or '', the caps kept in its record: see
-- hold_make), fenced by ARG.fencingToken.
--
-- The seat lock (LockOwnership: a section pipelined with its lock's acquire, whose grant it cannot know):
-- with ARG.lockOwner, the hold is made only if every key of KEY.seatLockKeys holds that owner now, else
-- {'NOT_LOCKED'} and nothing is read or written; a token of 0 then means "the counter's value": the lock is
-- ours at this moment, so every later holder of these seats draws a higher token. With ARG.letGoOfLock '1'
-- (the hold is its section's last write: HeldLock.letGoInScript) every answer but NOT_LOCKED also deletes
-- the seat lock's keys, last.
--
-- A hold made by staff on a customer's behalf carries its audited action (ARG.actionId, '' for none, and
-- the rest of the manifest's STAFF_ACTION; KEY.staffLedger): the hold and the action's 'A' in the ledger are
-- one atomic step (its audit entry is settled from that mark alone), an action given up ('X') is refused
-- {'ACTION_CANCELLED'}, and an action applied already answers the hold it made {'OK', hold}: a replay,
-- nothing written.
--
-- A seat is taken only if it is free, or held by a hold whose expireAt has passed (that hold is expired on
-- the spot, with its SeatExpired records). Replies {'OK', hold, 1 when the shard's wake-up must come
-- sooner (HoldStore.createHold) else 0} | {'SEATS_UNAVAILABLE', {seatId, reason}...} |
-- {'SOLD_OUT', {area, free}...} | {'HOLD_LIMIT_EXCEEDED', held, cap} | {'STALE_FENCING_TOKEN'} (see fence_ok()) | {'POLICY_CHANGED', version}
-- | {'EVENT_ENDED'} (new_hold_refusal); nothing is written but for the answer {'OK', ...}.
local token = tonumber(ARG.fencingToken)
local let_go = false
if ARG.lockOwner ~= '' then
  if not lock_owned(KEY.seatLockKeys, ARG.lockOwner) then return { 'NOT_LOCKED' } end
  if token == 0 then token = tonumber(redis.call('GET', K_FENCE) or 0) end
  let_go = ARG.letGoOfLock == '1'
end
-- every answer from here on: the seat lock goes with it when asked (the script's last change)
local function answer(reply)
  if let_go then lock_let_go(KEY.seatLockKeys) end
  return reply
end
local staffed = ARG.actionId ~= ''
if staffed then
  local mark = staff_mark()
  if mark == 'X' then return answer({ 'ACTION_CANCELLED' }) end
  if mark == 'A' then
    local made = load(ARG.hid)
    -- forgotten only past its retention, as long as the ledger keeps the mark: the event is over
    return answer(made and { 'OK', view(made) } or { 'EVENT_ENDED' })
  end
end
local refusal = new_hold_refusal()
if refusal then return answer(refusal) end
local admission, entry = q_gate()
if admission then return answer(admission) end

local seats = ARG.seatIds
local conflicts, highest = {}, 0
for _, s in ipairs(seats) do
  local reason, fence = seat_taken(s, true)
  if fence > highest then highest = fence end
  if reason then conflicts[#conflicts + 1] = { s, reason } end
end
if #conflicts > 0 then return answer({ 'SEATS_UNAVAILABLE', conflicts }) end
-- the event's orphan-seat rule (allocation-index.lua): a seat the hold would leave alone in its row is
-- refused by its id, reason ORPHAN_SEAT, the way a taken seat is
local stranded = orphan_stranded(seats)
if stranded then return answer({ 'SEATS_UNAVAILABLE', { { stranded, 'ORPHAN_SEAT' } } }) end
-- places of general-admission areas ARG.places "AREA:quantity,...", in this same step as the seats
-- (hold-growth.lua places_refusal): {'SOLD_OUT', {{area, free}...}} when an area has too few
local places = {}
for area, q in string.gmatch(ARG.places, '([^:,]+):(%d+)') do
  places[#places + 1] = area
  places[#places + 1] = tonumber(q)
end
local sold_out = places_refusal(places)
if sold_out then return answer(sold_out) end
if not fence_ok(highest, token) then return answer({ 'STALE_FENCING_TOKEN' }) end

local live, over = user_cap(#seats + places_count({ pl = places }))
if not live then return answer(over) end

local h, sooner = hold_make(seats, token, live, entry, places)
if staffed then staff_applied() end
return answer({ 'OK', view(h), sooner and 1 or 0 })
