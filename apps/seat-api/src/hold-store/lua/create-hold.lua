-- All-or-none hold. ARGV[4] hid, [5] userId, [6] ttlMs, [7] maxLifetimeMs, [8] maxSeatsPerUser,
-- [9] fencing token, [10] the seat lock's owner token or '', [11] '1' to let go of the seat lock or '',
-- [12] the event policy version the caller checked the hold against or '', [13] the hold's extension cap
-- or '', [14] its ttl cap (ms) or '', [15] the staff action id of a hold made on a customer's behalf or '',
-- [16] how long the event's staff-action ledger is kept (ms), [17..20] the action's actor, name, target
-- and reason (staff_applied; '' without an action), [21..] seat ids. KEYS[EVENT_SCRIPT_KEYS + 1]
-- is that ledger (force-release.lua), the ones after it the seat lock's keys when an owner is given.
-- With an action id the hold and the action's 'A' in the ledger are one atomic step (its audit entry is
-- settled from that mark alone), an action given up ('X') is refused {'ACTION_CANCELLED'}, and an action
-- applied already answers the hold it made {'OK', hold}: a replay, nothing written.
-- With a policy version, the hold is made only if it is still the event's (meta `pv`, raised by every
-- change of the event's settings, sales closed or cancelled included, before that change answers): else
-- {'POLICY_CHANGED', the current version or ''} and nothing is written. The caps are the hold's own terms,
-- kept in its record: a later change of the event's settings does not change them.
-- With an owner (LockOwnership: a section pipelined with its lock's acquire, whose grant it cannot know)
-- the hold is made only if every seat lock key holds that owner now, else {'NOT_LOCKED'} and nothing is
-- read or written; a token of 0 then means "the counter's value": the lock is ours at this moment, so
-- every later holder of these seats draws a higher token. With ARGV[11] (the hold is its section's last
-- write: HeldLock.letGoInScript) every answer but NOT_LOCKED also deletes the seat lock's keys, last.
-- A seat is taken only if it is free, or held by a hold whose expireAt has passed (that hold is
-- expired on the spot, with its SeatExpired records). Replies {'OK', hold} | {'SEATS_UNAVAILABLE',
-- {seatId, reason}...} | {'HOLD_LIMIT_EXCEEDED', held, limit} | {'STALE_FENCING_TOKEN'} (see fence_ok()) |
-- {'EVENT_ENDED'}: the event is over by Redis time (event-retention.lua), and nothing is written.
local hid, user, ttl, lifetime = ARGV[4], ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local limit, token, lock_owner = tonumber(ARGV[8]), tonumber(ARGV[9]), ARGV[10]
local let_go = false
if lock_owner ~= '' then
  if not lock_owned(EVENT_SCRIPT_KEYS + 2, lock_owner) then return { 'NOT_LOCKED' } end
  if token == 0 then token = tonumber(redis.call('GET', K_FENCE) or 0) end
  let_go = ARGV[11] == '1'
end
-- every answer from here on: the seat lock goes with it when asked (the script's last change)
local function answer(reply)
  if let_go then lock_let_go(EVENT_SCRIPT_KEYS + 2) end
  return reply
end
local ledger, action = KEYS[EVENT_SCRIPT_KEYS + 1], ARGV[15]
if action ~= '' then
  local mark = redis.call('HGET', ledger, action)
  if mark == 'X' then return answer({ 'ACTION_CANCELLED' }) end
  if mark == 'A' then
    local made = load(hid)
    -- forgotten only past its retention, as long as the ledger keeps the mark: the event is over
    return answer(made and { 'OK', view(made) } or { 'EVENT_ENDED' })
  end
end
-- before the policy: an event over has no policy version left to match (none is stored once it is removed)
if event_ended() then return answer({ 'EVENT_ENDED' }) end
if ARGV[12] ~= '' then
  local pv = redis.call('HGET', K_META, 'pv')
  if pv ~= ARGV[12] then return answer({ 'POLICY_CHANGED', pv or '' }) end
end

local seats = {}
for i = 21, #ARGV do seats[#seats + 1] = ARGV[i] end

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
if #conflicts > 0 then return answer({ 'SEATS_UNAVAILABLE', conflicts }) end
-- the event's orphan-seat rule (allocation-index.lua): a seat the hold would leave alone in its row is
-- refused by its id, reason ORPHAN_SEAT, the way a taken seat is
local stranded = orphan_stranded(seats)
if stranded then return answer({ 'SEATS_UNAVAILABLE', { { stranded, 'ORPHAN_SEAT' } } }) end
if not fence_ok(highest, token) then return answer({ 'STALE_FENCING_TOKEN' }) end

local held, live = user_live_holds(user)
if held + #seats > limit then return answer({ 'HOLD_LIMIT_EXCEEDED', held, limit }) end

local h, sooner = hold_make(hid, user, seats, ttl, lifetime, token, tonumber(ARGV[13]) or -1,
  tonumber(ARGV[14]) or 0, live)
if action ~= '' then staff_applied(ledger, action, ARGV[16], 17) end
-- third: 1 when the shard's wake-up must come sooner for this hold (HoldStore.createHold)
return answer({ 'OK', view(h), sooner and 1 or 0 })
