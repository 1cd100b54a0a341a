-- A new hold record and its bucket growth (linear hashing, hold-buckets.lua), for every script that makes
-- a hold (create-hold.lua, best-available.lua).

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
