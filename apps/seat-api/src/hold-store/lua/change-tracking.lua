-- The seat-map change log, written by every hold script in the same atomic step as the change itself, so
-- a reader never sees a seat change without its log entry or the other way round (see hold-keys.ts for
-- the keys, seat-map/ for the readers). Readers keep a snapshot per event and read only the entries after
-- its version instead of scanning every seat.
--
-- How a script records: seat() (seats.lua) notes the state a seat had before the script touched it, set_seat()
-- notes what it writes, save() notes each hold's status; log_changes() runs once after the script body
-- (hold-script.ts wraps every script so) and appends one entry (a sweep of over 1,000 seats: a few):
-- the version goes up by one per entry, and the entry lists each written seat's final state. A seat
-- written twice in one script (freed from a lapsed hold, then taken) appears once, as it ended. Scripts
-- that change nothing append nothing.
--
-- Held seats carry their expireAt, so readers apply lazy expiry themselves: a seat is HELD until then and
-- AVAILABLE after, before any sweeper ran (the sweeper's later 'A' only confirms it). A seat of a hold
-- being confirmed is 'H0': held whatever the time, as create-hold refuses it until the confirm resolves.

-- Declared before seat() and set_seat(), which call these.
-- seatId -> state letter before this script, seatId -> {letter, hid, expireAt} after, write order; hid -> status
-- (set afresh by cl_reset(), which every call runs first: see call-begin.lua)
local CL_BEFORE, CL_AFTER, CL_ORDER, CL_STATUS

-- The event's meta counters (version v, held, booked, record count hn) as this call changed them: each
-- is read once, and all are written by one HSET when the call (or, in the shard sweep, the event) is
-- done (meta_flush, at the end of log_changes). One HINCRBY per counter was one more command for Redis
-- to propagate to the AOF and every replica, three per hold.
local META_NOW
local function meta_add(field, delta)
  local v = META_NOW[field]
  if v == nil then v = tonumber(redis.call('HGET', K_META, field) or 0) end
  v = v + delta
  META_NOW[field] = v
  return v
end
local function meta_flush()
  local args = {}
  for field, v in pairs(META_NOW) do
    args[#args + 1] = field
    args[#args + 1] = string.format('%d', v)
  end
  if #args > 0 then redis.call('HSET', K_META, unpack(args)) end
  META_NOW = {}
end

-- The event's general-admission areas as this call read or changed them (places.lua): area -> counts,
-- the areas changed, in order.
local AREA_NOW, AREA_DIRTY, AREA_ORDER

-- The shard sweep records each event it visits on its own (its meta and log), then starts afresh.
local function cl_reset()
  CL_BEFORE, CL_AFTER, CL_ORDER, CL_STATUS, META_NOW = {}, {}, {}, {}, {}
  AREA_NOW, AREA_DIRTY, AREA_ORDER = {}, {}, {}
end

local function cl_seen(seatId, state)
  if CL_BEFORE[seatId] == nil then CL_BEFORE[seatId] = state end
end

local function cl_written(seatId, state, hid, exp)
  if CL_BEFORE[seatId] == nil then
    local v = redis.call('HGET', K_SEATS, seatId)
    CL_BEFORE[seatId] = v and string.sub(v, 1, 1) or 'F'
  end
  if CL_AFTER[seatId] == nil then CL_ORDER[#CL_ORDER + 1] = seatId end
  CL_AFTER[seatId] = { state, hid, exp }
end
