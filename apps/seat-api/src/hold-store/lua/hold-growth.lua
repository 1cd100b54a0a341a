-- A new hold: the user's cap, its record and its bucket growth (linear hashing, hold-buckets.lua), for
-- every script that makes a hold (create-hold.lua, best-available.lua).

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
      held = held + #rec.seats
      live[#live + 1] = h
    end
  end
  return held, live
end

-- Makes hold `hid` of `user` on `seats` (free, locked, fenced by `token`): its record, the seats held
-- until it expires, its due entry, its HoldCreated record, and the user's live holds (`live`, from
-- user_live_holds) with it. `mx`, `mt`: the show's most extensions and total lifetime for it. Returns the
-- hold and whether the shard's wake-up must come sooner for it.
local function hold_make(hid, user, seats, ttl, lifetime, token, mx, mt, live)
  local h = { hid = hid, user = user, status = 'ACTIVE', seats = seats, created = NOW, expire = NOW + ttl,
              max = NOW + lifetime, ext = 0, fence = token, order = '', ended = 0, deadline = 0,
              mx = mx, mt = mt }
  if h.expire > h.max then h.expire = h.max end
  set_seats(seats, 'H', hid, h.expire, token)
  save(h)
  hold_record_added()
  local sooner = due_add(h.expire, hid)
  status_change(SEAT_STATUS.CREATED, h, seats, SEAT_STATUS_FIELDS.expireAt, h.expire)
  live[#live + 1] = hid
  update_user_holds(user, function() return table.concat(live, ',') end)
  return h, sooner
end
