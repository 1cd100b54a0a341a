-- Read-only: one page of an event's holds, for staff (holds/admin). ARG.fromBucket the first bucket,
-- ARG.afterHid the hid after which that bucket resumes ('' for its start), ARG.limit the page size,
-- ARG.userId or '', ARG.status or '' (as clients see it: an ACTIVE hold past its expireAt is EXPIRED, a
-- CONFIRMING one ACTIVE), ARG.maxBuckets at most this many buckets read. Replies {next bucket, hid to resume after, {hold...}}; next bucket -1: no more.
-- A page walks the hold buckets (hold-buckets.lua) in order and each bucket's holds by hid, so the work of
-- one call is bounded whatever the event's size. Buckets only ever split into a higher bucket, so a hold
-- is never skipped; one moved by a split between two pages may be listed twice.
local bucket, after, limit = tonumber(ARG.fromBucket), ARG.afterHid, tonumber(ARG.limit)
local user, status, max_buckets = ARG.userId, ARG.status, tonumber(ARG.maxBuckets)
buckets_ready()
local count, found, read = HB_M + HB_P, {}, 0
while bucket < count and read < max_buckets do
  local hids = redis.call('HKEYS', K_HOLDS .. ':' .. bucket)
  table.sort(hids)
  for _, hid in ipairs(hids) do
    if hid > after then
      local h = load(hid)
      local v = view(h)
      local seen = v[3] == 'CONFIRMING' and 'ACTIVE' or v[3]
      if (user == '' or h.user == user) and (status == '' or seen == status) then
        if #found == limit then return { bucket, after, found } end
        found[#found + 1] = v
      end
      after = hid
    end
  end
  bucket, after, read = bucket + 1, '', read + 1
end
if bucket >= count then bucket = -1 end
return { bucket, after, found }
