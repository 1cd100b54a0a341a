/**
 * Shared head of every hold script. KEYS are always the six keys of one event (see hold-keys.ts);
 * ARGV[1] = event id, ARGV[2] = public hold-id prefix of the event, ARGV[3] = retention ms of ended holds.
 * Script-specific arguments start at ARGV[4].
 *
 * Time is Redis TIME, read once per script: every instance agrees on "now" whatever its own clock says.
 * A hold record is a cmsgpack array:
 *   {userId, status, seatIds, createdAt, expireAt, maxExpireAt, extensions, fence, orderId, endedAt, confirmDeadline}
 */
export const PRELUDE = `
local K_SEATS, K_HOLDS, K_DUE, K_USERS, K_OUTBOX, K_GC = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local EVENT_ID, ID_PREFIX, RETENTION = ARGV[1], ARGV[2], tonumber(ARGV[3])
local t = redis.call('TIME')
local NOW = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local function load(hid)
  local raw = redis.call('HGET', K_HOLDS, hid)
  if not raw then return nil end
  local r = cmsgpack.unpack(raw)
  return { hid = hid, user = r[1], status = r[2], seats = r[3], created = r[4], expire = r[5], max = r[6],
           ext = r[7], fence = r[8], order = r[9], ended = r[10], deadline = r[11] }
end

local function save(h)
  redis.call('HSET', K_HOLDS, h.hid, cmsgpack.pack({ h.user, h.status, h.seats, h.created, h.expire, h.max,
    h.ext, h.fence, h.order, h.ended, h.deadline }))
end

-- The reply shape every script uses for a hold: read by hold.store.ts#toRecord.
local function view(h)
  local status = h.status
  if status == 'ACTIVE' and h.expire <= NOW then status = 'EXPIRED' end
  return { ID_PREFIX .. h.hid, h.user, status, h.seats, h.created, h.expire, h.max, h.ext, h.fence,
           h.order, h.ended, h.deadline, NOW }
end

-- seat value "S|hid|expireAt|fence" -> state, hid, expireAt, fence
local function seat(seatId)
  local v = redis.call('HGET', K_SEATS, seatId)
  if not v then return 'F', '', 0, 0 end
  local s, hid, exp, fence = string.match(v, '^(%a)|([^|]*)|(%d+)|(%d+)$')
  return s, hid, tonumber(exp), tonumber(fence)
end

local function set_seat(seatId, state, hid, exp, fence)
  redis.call('HSET', K_SEATS, seatId, state .. '|' .. hid .. '|' .. exp .. '|' .. fence)
end

-- True when some seat was written by a newer lock holder than \`token\` (Kleppmann's paused client).
local function stale(seatIds, token)
  for _, s in ipairs(seatIds) do
    local _, _, _, fence = seat(s)
    if fence > token then return true end
  end
  return false
end

local function drop_user_hold(user, hid)
  local list = redis.call('HGET', K_USERS, user)
  if not list then return end
  local kept = {}
  for h in string.gmatch(list, '[^,]+') do
    if h ~= hid then kept[#kept + 1] = h end
  end
  if #kept == 0 then redis.call('HDEL', K_USERS, user) else redis.call('HSET', K_USERS, user, table.concat(kept, ',')) end
end

-- Moves a hold to a terminal status: off the due index, onto the forget schedule, out of the user's list.
local function finish(h, status)
  h.status = status
  h.ended = NOW
  h.deadline = 0
  save(h)
  redis.call('ZREM', K_DUE, h.hid)
  redis.call('ZADD', K_GC, NOW + RETENTION, h.hid)
  drop_user_hold(h.user, h.hid)
end

-- Frees the seats of a hold whose time ran out and records one SeatExpired per seat in the outbox,
-- in this same atomic step: a seat is never freed without its event, nor an event written twice.
local function expire(h)
  for _, s in ipairs(h.seats) do
    local state, hid, _, fence = seat(s)
    if state == 'H' and hid == h.hid then
      set_seat(s, 'F', '', 0, fence)
      redis.call('XADD', K_OUTBOX, '*', 'type', 'SeatExpired', 'eventId', EVENT_ID, 'seatId', s,
        'holdId', ID_PREFIX .. h.hid, 'userId', h.user, 'expireAt', h.expire, 'fencingToken', h.fence,
        'expiredAt', NOW)
    end
  end
  finish(h, 'EXPIRED')
  return #h.seats
end

-- An ACTIVE hold past its expireAt that nobody swept yet is expired now, by whoever finds it.
local function settle(h)
  if h and h.status == 'ACTIVE' and h.expire <= NOW then expire(h) end
  return h
end
`;
