-- Hold buckets: an event's per-hold data (its hold records and its due index) is split by hold id into
-- buckets small enough for Redis's compact encodings: `holds:<b>` HASH and `due:<b>` ZSET (hold-keys.ts).
-- Below 128 entries (hash/zset-max-listpack-entries) Redis keeps a hash or sorted set as one listpack,
-- about half the bytes of a hashtable entry and a quarter of a skiplist node; one big hash per event
-- would pay the full price for every hold past the 128th.
--
-- The bucket count grows with the event's hold records by linear hashing (Litwin): buckets split one at a
-- time, each split moving only the entries of one bucket (about BUCKET_SPLIT_LOAD of each kind), so no
-- script ever rehashes a whole event. An event with a few holds has one bucket; a large one has about
-- records / BUCKET_SPLIT_LOAD. The state is two fields of the event's meta hash: `hl` (level L) and `hp`
-- (split pointer p); buckets 0 .. 2^L + p - 1 exist. A hold's code c is 18 bits from the first three
-- (base64url, random) characters of its hid; its bucket is c mod 2^L, or c mod 2^(L+1) when that is
-- below p (that bucket was split already). `hn` counts the records (create +1, forget -1).
--
-- Shared by the hold scripts, the lock-free conflict read (seat-conflicts.lua) and the seat-map
-- status read (seat-map-hold-statuses.lua): every reader of a hold record finds its bucket the same way.

-- Defines hb_use(metaKey) (reads L and p of an event; call it before hb_index, and again for another
-- event), hb_code(hid) and hb_index(hid); HB_M + HB_P buckets exist. Few functions: the reads that run
-- this file with EVALSHA (seat-conflicts.lua, seat-map-hold-statuses.lua) create its closures on every call.
local HB_L, HB_M, HB_P = 0, 1, 0
local function hb_use(metaKey)
  local m = redis.call('HMGET', metaKey, 'hl', 'hp')
  HB_L, HB_P = tonumber(m[1] or 0), tonumber(m[2] or 0)
  HB_M = 2 ^ HB_L
end
-- base64url character -> 0..63 (A-Z a-z 0-9 - _)
local function hb_digit(c)
  if c >= 97 then return c - 71 end
  if c == 95 then return 63 end
  if c >= 65 then return c - 65 end
  if c >= 48 then return c + 4 end
  return 62
end
local function hb_code(hid)
  local a, b, c = string.byte(hid, 1, 3)
  return hb_digit(a or 65) * 4096 + hb_digit(b or 65) * 64 + hb_digit(c or 65)
end
local function hb_index(hid)
  local c = hb_code(hid)
  local x = c % HB_M
  if x < HB_P then x = c % (2 * HB_M) end
  return x
end
