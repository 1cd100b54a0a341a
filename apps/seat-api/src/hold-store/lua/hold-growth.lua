-- A new hold: the checks it passes, the user's cap, its record and its bucket growth (linear hashing,
-- hold-buckets.lua), for every script that makes a hold (create-hold.lua, best-available.lua), and the
-- conflict rule they share with the lock-free read of seat-conflicts.lua.

-- What refuses any new hold before its seats are looked at, or nil: the event is over by Redis time
-- (event-retention.lua: {'EVENT_ENDED'}), or the policy version the caller checked the hold against
-- (ARG.policyVersion, '' for none) is no longer the event's (meta `pv`, raised by every change of the
-- event's settings, sales closed or cancelled included, before that change answers):
-- {'POLICY_CHANGED', the current version or ''}. Before the policy: an event over has no version left.
local function new_hold_refusal()
  if event_ended() then return { 'EVENT_ENDED' } end
  if ARG.policyVersion ~= '' then
    local pv = redis.call('HGET', K_META, 'pv')
    if pv ~= ARG.policyVersion then return { 'POLICY_CHANGED', pv or '' } end
  end
  return nil
end

-- Why seat `s` cannot be taken now, or nil: 'BOOKED'; 'HELD' while its hold's expireAt is in the future, or
-- while that hold is being confirmed (a CONFIRMING hold keeps its seats past expireAt until the confirm
-- is decided). A hold whose time ran out is expired on the spot when `settle_lapsed` (with its
-- SeatExpired records), else only read. Also returns the seat's fence and its hid (BLOCKED_HID for a seat
-- staff blocked, which counts as BOOKED: block-seats.lua).
local function seat_taken(s, settle_lapsed)
  local state, owner, exp, fence = seat(s)
  if state == 'B' then return 'BOOKED', fence, owner end
  if state ~= 'H' then return nil, fence, owner end
  if exp > NOW then return 'HELD', fence, owner end
  local h = load(owner)
  if settle_lapsed then settle(h) end
  if h and h.status == 'CONFIRMING' then return 'HELD', fence, owner end
  return nil, fence, owner
end

-- Splits bucket p into p and p + 2^L: moves the records and due entries whose code says so, in one
-- HSET / HDEL / ZADD / ZREM per key. Only this bucket's entries move.
local function hold_split_bucket()
  local from, to, m2 = HB_P, HB_P + HB_M, 2 * HB_M
  local src, dst = K_HOLDS .. ':' .. from, K_HOLDS .. ':' .. to
  local all, moved, gone = redis.call('HGETALL', src), {}, {}
  for i = 1, #all, 2 do
    if hb_code(all[i]) % m2 ~= from then
      moved[#moved + 1] = all[i]
      moved[#moved + 1] = all[i + 1]
      gone[#gone + 1] = all[i]
    end
  end
  if #gone > 0 then
    redis.call('HSET', dst, unpack(moved))
    redis.call('HDEL', src, unpack(gone))
  end
  src, dst = K_DUE .. ':' .. from, K_DUE .. ':' .. to
  local due, earliest = redis.call('ZRANGE', src, 0, -1, 'WITHSCORES'), nil
  moved, gone = {}, {}
  for i = 1, #due, 2 do
    if hb_code(due[i]) % m2 ~= from then
      moved[#moved + 1] = due[i + 1]
      moved[#moved + 1] = due[i]
      gone[#gone + 1] = due[i]
      local score = tonumber(due[i + 1])
      if earliest == nil or score < earliest then earliest = score end
    end
  end
  if #gone > 0 then
    redis.call('ZADD', dst, unpack(moved))
    redis.call('ZREM', src, unpack(gone))
    redis.call('ZADD', K_DUE, 'LT', earliest, to)
  end
  HB_P = HB_P + 1
  if HB_P == HB_M then HB_L, HB_M, HB_P = HB_L + 1, m2, 0 end
  redis.call('HSET', K_META, 'hl', HB_L, 'hp', HB_P)
end

-- A new hold record was saved: counts it, and splits one bucket when the event's records outgrow them.
local function hold_record_added()
  local n = meta_add('hn', 1)
  buckets_ready()
  if n > BUCKET_SPLIT_LOAD * (HB_M + HB_P) then hold_split_bucket() end
end

-- The seats the user holds now (ACTIVE or CONFIRMING holds) and those holds' ids, for the per-user cap;
-- the user's holds that ended are settled on the way and left out.
local function user_live_holds(user)
  local held, live = 0, {}
  for h in string.gmatch(user_holds(user), '[^,]+') do
    local rec = settle(load(h))
    if rec and (rec.status == 'CONFIRMING' or rec.status == 'ACTIVE') then
      held = held + #rec.seats + places_count(rec)
      live[#live + 1] = h
    end
  end
  return held, live
end

-- The user's live holds (user_live_holds), or nil and the refusal when `count` more seats would pass the
-- user's cap (ARG.maxSeatsPerUser): {'HOLD_LIMIT_EXCEEDED', seats held, cap}.
local function user_cap(count)
  local held, live = user_live_holds(ARG.userId)
  local cap = tonumber(ARG.maxSeatsPerUser)
  if held + count > cap then return nil, { 'HOLD_LIMIT_EXCEEDED', held, cap } end
  return live
end

-- Makes the call's hold (ARG.hid of ARG.userId, under the terms the manifest's HOLD_TERMS name) on
-- `seats` (free, locked, fenced by `token`): its record, the seats held until it expires, its due entry,
-- its HoldCreated record, and the user's live holds (`live`, from user_live_holds) with it; charged to the
-- queue entry whose admission pass it was made under, if any (`entry`, q_gate). The caps
-- ('' for the deployment's) are the hold's own terms, kept in its record: a later change of the event's
-- settings does not change them. Returns the hold and whether the shard's wake-up must come sooner for it.
local function hold_make(seats, token, live, entry, places)
  local hid, user = ARG.hid, ARG.userId
  local h = { hid = hid, user = user, status = 'ACTIVE', seats = seats, created = NOW,
              expire = NOW + tonumber(ARG.ttlMs), max = NOW + tonumber(ARG.maxLifetimeMs), ext = 0,
              fence = token, order = '', ended = 0, deadline = 0,
              mx = tonumber(ARG.maxExtensions) or -1, mt = tonumber(ARG.maxTtlMs) or 0, pr = ARG.pricing,
              pl = places or {} }
  if h.expire > h.max then h.expire = h.max end
  if entry then q_charge(entry, h) end
  set_seats(seats, 'H', hid, h.expire, token)
  places_move(h, 1, 0)
  save(h)
  hold_record_added()
  local sooner = due_add(h.expire, hid)
  status_change(SEAT_STATUS.CREATED, h, seats, SEAT_STATUS_FIELDS.expireAt, h.expire)
  live[#live + 1] = hid
  update_user_holds(user, function() return table.concat(live, ',') end)
  return h, sooner
end

-- Expires the event's ACTIVE holds whose time ran out (at most `max`), as the sweeper would: their places
-- (and seats) go back at once, so an area is not refused while lapsed holds sit on it (places.lua).
local function expire_lapsed(max)
  local done = 0
  for _, b in ipairs(redis.call('ZRANGEBYSCORE', K_DUE, '-inf', NOW)) do
    for _, hid in ipairs(redis.call('ZRANGEBYSCORE', K_DUE .. ':' .. b, '-inf', NOW, 'LIMIT', 0, max - done)) do
      local h = load(hid)
      if h and h.status == 'ACTIVE' and h.expire <= NOW then
        expire(h)
        done = done + 1
      end
    end
    if done >= max then return end
  end
end

-- Whether the places a new hold names (flat list {area, quantity...}) can all be taken now: nil when they
-- can, else {'SOLD_OUT', {{area, places free}...}}. When an area is short, the event's lapsed holds are
-- expired first and it is asked again.
local function places_refusal(places)
  if #places == 0 then return nil end
  if #places_short(places) == 0 then return nil end
  expire_lapsed(100)
  local short = places_short(places)
  if #short == 0 then return nil end
  return { 'SOLD_OUT', short }
end
