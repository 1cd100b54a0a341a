import { LOCK_OWNED_LUA } from '@app/distributed-lock';
import { CHANGE_LOG_WRITE, CHANGE_TRACKING } from './change-log.lua';
import { HOLD_BUCKETS } from './hold-buckets.lua';

/**
 * Shared head of every hold script. KEYS: [1] seats, [2] holds (the prefix of its buckets), [3] due (the
 * head of its buckets), [4] users of one event, [5] the outbox stream of its shard, [6] the event's gc,
 * [7] the fencing counter its seat locks draw from (the shard's), [8] meta and [9] changes of the event
 * (the seat-map log), [10] due and [11] gc of the shard:
 * all under the shard's hash tag (see hold-keys.ts), so one slot. ARGV[1] = event id, ARGV[2] = public
 * hold-id prefix of the event, ARGV[3] = retention ms of ended holds; script-specific arguments start at
 * ARGV[4]. seat(), set_seat() and save() note every change, and log_changes() records them once the
 * script body is done (change-log.lua.ts; hold-script.ts runs it after every script).
 *
 * The shard sweep (sweep.lua.ts) visits several events in one call: use_event() points the per-event
 * K_* variables (upvalues of every function here) and EVENT_ID / ID_PREFIX at another event of the shard,
 * building its key names from the shard's own key: same hash tag, hence the same slot as the declared keys.
 *
 * Time is Redis TIME, read once per call (begin()): every instance agrees on "now" whatever its own clock
 * says. The store runs these scripts as functions of one library (hold-script.ts): the definitions below
 * are built once per load, and begin() sets each call's keys, arguments, time and fresh per-call state.
 *
 * A hold record (the value in its holds:<b> bucket, written by save() only) is a positional cmsgpack
 * array, packed small because there is one per hold (see hold-keys.ts for what it costs):
 *   {userId, status code (HOLD_STATUS_CODES), seatIds, createdAt, expireAt - createdAt,
 *    maxExpireAt - createdAt, extensions, fence, orderId, endedAt - createdAt + 1, confirmDeadline - createdAt + 1}
 * Times after createdAt are kept as offsets from it (a few bytes instead of 9 for an epoch ms); endedAt
 * and confirmDeadline are 0 for "none", hence the +1 (a hold may end in the ms it was made). Trailing
 * fields at their default ('' or 0) are left out: an ACTIVE hold's record has 8 fields.
 */

/** KEYS of an event script (above); the sweep declares one more (the shard's events index). */
export const EVENT_SCRIPT_KEYS = 11;

/**
 * The users hash has one field per bucket of users: this many hex digits of the userId's SHA-1, so 4,096
 * buckets. Past a few thousand users per event each field packs several users (about 25 B each instead of
 * ~74 B for a field of its own); a change reads and rewrites one bucket (users / 4,096 entries).
 * User ids go into the bucket's value between '\n' and '=' (see user_entry): they may contain neither.
 */
export const USER_BUCKET_HEX_DIGITS = 3;

/** Status codes of a hold record (position 2): readers outside the prelude compare with these. */
export const HOLD_STATUS_CODES = { ACTIVE: 0, CONFIRMING: 1, CONFIRMED: 2, RELEASED: 3, EXPIRED: 4 } as const;

const STATUS_NAMES = Object.entries(HOLD_STATUS_CODES)
  .map(([name, code]) => `[${code}] = '${name}'`)
  .join(', ');
const STATUS_CODES = Object.entries(HOLD_STATUS_CODES)
  .map(([name, code]) => `${name} = ${code}`)
  .join(', ');

export const PRELUDE_DEFINITIONS = `
-- Per call (set by begin()): the keys and arguments of the call, Redis time.
local K_SEATS, K_HOLDS, K_DUE, K_USERS, K_OUTBOX, K_GC, K_FENCE, K_SDUE, K_SGC
local EVENT_ID, ID_PREFIX, RETENTION, NOW, SHARD_BASE
${CHANGE_TRACKING}${HOLD_BUCKETS}${LOCK_OWNED_LUA}
-- The event's bucket state (hold-buckets.lua.ts) is read from meta once per call (per event, for the
-- shard sweep), at first need: a call that touches no hold record does not read it.
local HB_READY = false
local function buckets_ready()
  if not HB_READY then
    hb_use(K_META)
    HB_READY = true
  end
end
-- Write batching, for the shard sweep's many holds of one event (batch_begin() .. batch_flush()): seat
-- values, hold records, user-index fields, due removals and gc entries are kept in tables, read back by
-- seat(), load() and user_entry() (the script sees its own writes), and written at the flush as one
-- command per key. Inside a script each redis.call that writes is a command Redis propagates on its own
-- (AOF, every replica): expiring 100 holds of an event one by one was some 700 commands, batched it is
-- the 100 outbox records and about a dozen more. Off (BATCH false) every write goes out at once, as before.
local BATCH, B_SEATS, B_RECORDS, B_USERS, B_DUE_REM, B_GC, B_SGC = false
-- map[key], a new table the first time
local function table_at(map, key)
  local t = map[key]
  if not t then
    t = {}
    map[key] = t
  end
  return t
end
local function batch_begin()
  BATCH, B_SEATS, B_RECORDS, B_USERS, B_DUE_REM, B_GC, B_SGC = true, {}, {}, {}, {}, {}, nil
end
-- "command key list..." in chunks of BATCH_CHUNK arguments (Lua's unpack has a stack limit; even, so a
-- chunk never splits a field/value or score/member pair); returns the sum of the replies (HDEL, ZREM: how
-- many went).
local BATCH_CHUNK = 500
local function write_list(command, key, list)
  local n = 0
  for from = 1, #list, BATCH_CHUNK do
    n = n + redis.call(command, key, unpack(list, from, math.min(from + BATCH_CHUNK - 1, #list)))
  end
  return n
end
local function write_pairs(command, key, map)
  local args = {}
  for field, value in pairs(map) do
    args[#args + 1] = field
    args[#args + 1] = value
  end
  write_list(command, key, args)
end
local function batch_flush()
  if not BATCH then return end
  BATCH = false
  write_pairs('HSET', K_SEATS, B_SEATS)
  for key, records in pairs(B_RECORDS) do write_pairs('HSET', key, records) end
  local set, gone = {}, {}
  for field, all in pairs(B_USERS) do
    if all == '' then gone[#gone + 1] = field else set[field] = all end
  end
  write_pairs('HSET', K_USERS, set)
  write_list('HDEL', K_USERS, gone)
  for b, hids in pairs(B_DUE_REM) do
    local sub = K_DUE .. ':' .. b
    write_list('ZREM', sub, hids)
    if redis.call('EXISTS', sub) == 0 then redis.call('ZREM', K_DUE, b) end
  end
  write_list('ZADD', K_GC, B_GC)
  if B_SGC then redis.call('ZADD', K_SGC, 'LT', B_SGC, EVENT_ID) end
end

-- The event's keys from the shard's: "<prefix>hold:{s<k>}:due" -> "<prefix>hold:{s<k>}:<eventId>:seats"...
-- Same {s<k>} tag as the shard keys this script declared: the same Cluster slot.
local function use_event(eventId)
  local base = SHARD_BASE .. eventId .. ':'
  K_SEATS, K_HOLDS, K_DUE, K_USERS = base .. 'seats', base .. 'holds', base .. 'due', base .. 'users'
  K_GC, K_META, K_CHANGES = base .. 'gc', base .. 'meta', base .. 'changes'
  EVENT_ID, ID_PREFIX = eventId, (string.gsub(eventId, '-', ''))
  HB_READY = false
end

-- The hold's bucket: its record is in holds:<b>, its due entry in due:<b>.
local function bucket(hid)
  buckets_ready()
  return hb_index(hid)
end
local function holds_key(hid)
  return K_HOLDS .. ':' .. bucket(hid)
end

-- Two levels inside the event: due:<b> holds hid -> due time, the head K_DUE holds b -> (at most) the
-- earliest due time of due:<b>. Every entry also lowers the bucket's entry in the head and the event's
-- entry in the shard's index (ZADD LT adds a missing member): the shard sweep finds the event, and the
-- bucket, no later than its first due hold. Removals leave the times as they are (early is harmless: the
-- sweep sets them right when it visits).
local function due_add(score, hid)
  local b = bucket(hid)
  redis.call('ZADD', K_DUE .. ':' .. b, score, hid)
  redis.call('ZADD', K_DUE, 'LT', score, b)
  redis.call('ZADD', K_SDUE, 'LT', score, EVENT_ID)
end
-- A bucket left empty leaves the head too: an empty head means no live hold (the event may be removed).
local function due_remove(hid)
  local b = bucket(hid)
  if BATCH then
    local hids = table_at(B_DUE_REM, b)
    hids[#hids + 1] = hid
    return
  end
  local sub = K_DUE .. ':' .. b
  if redis.call('ZREM', sub, hid) == 1 and redis.call('EXISTS', sub) == 0 then redis.call('ZREM', K_DUE, b) end
end

local STATUS_NAME, STATUS_CODE = { ${STATUS_NAMES} }, { ${STATUS_CODES} }

-- A time after createdAt as stored: 0 stays 0 ("none"), else its offset from createdAt plus one.
local function since(created, ms)
  if ms == 0 then return 0 end
  return ms - created + 1
end
local function at(created, stored)
  if stored == nil or stored == 0 then return 0 end
  return created + stored - 1
end

local function load(hid)
  local key = holds_key(hid)
  local raw = BATCH and B_RECORDS[key] and B_RECORDS[key][hid] or redis.call('HGET', key, hid)
  if not raw then return nil end
  local r = cmsgpack.unpack(raw)
  local c = r[4]
  return { hid = hid, user = r[1], status = STATUS_NAME[r[2]], seats = r[3], created = c, expire = c + r[5],
           max = c + r[6], ext = r[7], fence = r[8], order = r[9] or '', ended = at(c, r[10]),
           deadline = at(c, r[11]) }
end

local function save(h)
  CL_STATUS[h.hid] = h.status
  local c = h.created
  local r = { h.user, STATUS_CODE[h.status], h.seats, c, h.expire - c, h.max - c, h.ext, h.fence, h.order,
              since(c, h.ended), since(c, h.deadline) }
  local n = 11
  while n > 8 and (r[n] == 0 or r[n] == '') do
    r[n] = nil
    n = n - 1
  end
  local key = holds_key(h.hid)
  if BATCH then
    table_at(B_RECORDS, key)[h.hid] = cmsgpack.pack(r)
    return
  end
  redis.call('HSET', key, h.hid, cmsgpack.pack(r))
end

-- The reply shape every script uses for a hold: read by hold-replies.ts#toHoldRecord.
local function view(h)
  local status = h.status
  if status == 'ACTIVE' and h.expire <= NOW then status = 'EXPIRED' end
  return { ID_PREFIX .. h.hid, h.user, status, h.seats, h.created, h.expire, h.max, h.ext, h.fence,
           h.order, h.ended, h.deadline, NOW }
end

-- seat value "S|hid|expireAt|fence" -> state, hid, expireAt, fence
local function seat(seatId)
  local v = BATCH and B_SEATS[seatId] or redis.call('HGET', K_SEATS, seatId)
  if not v then
    cl_seen(seatId, 'F')
    return 'F', '', 0, 0
  end
  local s, hid, exp, fence = string.match(v, '^(%a)|([^|]*)|(%d+)|(%d+)$')
  cl_seen(seatId, s)
  return s, hid, tonumber(exp), tonumber(fence)
end

-- Writes seats (one HSET for all of them, one command to propagate), noting each for the change log.
local function set_seats(seatIds, state, hid, exp, fence)
  local v, args = state .. '|' .. hid .. '|' .. exp .. '|' .. fence, {}
  for _, s in ipairs(seatIds) do
    cl_written(s, state, hid, exp)
    if BATCH then
      B_SEATS[s] = v
    else
      args[#args + 1] = s
      args[#args + 1] = v
    end
  end
  write_list('HSET', K_SEATS, args)
end
local function set_seat(seatId, state, hid, exp, fence)
  set_seats({ seatId }, state, hid, exp, fence)
end

-- Ownership. A script writes a seat only while the seat is still its hold's own: 'H' or 'B' under the
-- hold's hid. Anything else means the seat was taken from the hold: a booking restored from PostgreSQL
-- (markBooked, 'B' with no hid), a committed booking of another hold (finishConfirm), or another hold
-- after Redis lost the seat. Such a seat is never written by this hold again, so it cannot undo a booking.
-- Returns 'H' or 'B' when the seat is h's own (else nil), then the seat's state and fence.
local function own(h, seatId)
  local state, hid, _, fence = seat(seatId)
  if hid == h.hid and state ~= 'F' then return state, state, fence end
  return nil, state, fence
end

-- What the seats of a live hold that it no longer holds are now: {{seatId, 'BOOKED'|'HELD'|'AVAILABLE'}...}.
-- Extend and confirm refuse with this list (SEATS_LOST): the hold cannot be whole again.
-- Also returns the highest fence among the hold's seats, for fence_ok (one read per seat for both).
local SEAT_NOW = { H = 'HELD', B = 'BOOKED', F = 'AVAILABLE' }
local function lost_seats(h)
  local lost, highest = {}, 0
  for _, s in ipairs(h.seats) do
    local mine, state, fence = own(h, s)
    if mine ~= 'H' then lost[#lost + 1] = { s, SEAT_NOW[state] } end
    if fence > highest then highest = fence end
  end
  return lost, highest
end

-- The seats h still holds: the only ones its release or expiry may free; and their highest fence.
local function held_seats(h)
  local mine, highest = {}, 0
  for _, s in ipairs(h.seats) do
    local m, _, fence = own(h, s)
    if m == 'H' then
      mine[#mine + 1] = s
      if fence > highest then highest = fence end
    end
  end
  return mine, highest
end

-- Fencing. K_FENCE is the lock's INCR counter for this event's tag; tokens only grow while Redis keeps
-- its data. A restart without persistence, a FLUSHALL or an eviction can reset it while seats (or a
-- paused writer) still carry tokens drawn before, so the token is checked against both:
--   token > counter: the counter never issued it; it predates the loss (and so does its lock) -> stale.
--   a seat's fence > token: a newer holder changed the seat since (Kleppmann's paused client) -> stale.
-- A seat whose fence is above the counter outlived the counter: raise the counter to it, even while
-- refusing, so the next acquisition draws a token above every seat seen and the store heals itself
-- (at most one refusal per writer) instead of refusing everyone until INCR catches up.
-- True when \`token\` may write seats whose highest fence is \`highest\`.
local function fence_ok(highest, token)
  local counter = tonumber(redis.call('GET', K_FENCE) or 0)
  if highest > counter then redis.call('SET', K_FENCE, highest) end
  return token <= counter and token >= highest
end

-- The per-user index (the seat cap), packed: one users-hash field per bucket of users, the first
-- ${USER_BUCKET_HEX_DIGITS} hex digits of the userId's SHA-1, whose value lists the bucket's users with live
-- holds as "\\n<userId>=<hid>,<hid>..." entries (a userId holds neither '\\n' nor '=': HoldStore refuses
-- such ids). Entries carry the full userId, so users whose digests collide share the field but never each
-- other's holds. Plain string search and splice, no table per call: a change costs a few µs.
local USER_FIELDS
-- The bucket's field, its value ('' when empty), where the user's entry starts and ends (nil if absent)
-- and the user's "hid,hid..." ('' for none).
local function user_entry(user)
  local field = USER_FIELDS[user]
  if not field then
    field = string.sub(redis.sha1hex(user), 1, ${USER_BUCKET_HEX_DIGITS})
    USER_FIELDS[user] = field
  end
  local all = BATCH and B_USERS[field] -- '' (an emptied field) is a value: Lua's '' is true
  if not all then all = redis.call('HGET', K_USERS, field) or '' end
  local key = '\\n' .. user .. '='
  local from = string.find(all, key, 1, true)
  if not from then return field, all, nil, nil, '' end
  local after = string.find(all, '\\n', from + 1, true) or #all + 1
  return field, all, from, after, string.sub(all, from + #key, after - 1)
end

-- The user's live holds as "hid,hid..." ('' for none).
local function user_holds(user)
  local _, _, _, _, list = user_entry(user)
  return list
end

-- Sets the user's live holds to change(current list) ('' drops the user's entry).
local function update_user_holds(user, change)
  local field, all, from, after, list = user_entry(user)
  list = change(list)
  local entry = list == '' and '' or ('\\n' .. user .. '=' .. list)
  if from then all = string.sub(all, 1, from - 1) .. entry .. string.sub(all, after) else all = all .. entry end
  if BATCH then
    B_USERS[field] = all
  elseif all == '' then
    redis.call('HDEL', K_USERS, field)
  else
    redis.call('HSET', K_USERS, field, all)
  end
end

local function drop_user_hold(user, hid)
  update_user_holds(user, function(list)
    local kept = {}
    for h in string.gmatch(list, '[^,]+') do
      if h ~= hid then kept[#kept + 1] = h end
    end
    return table.concat(kept, ',')
  end)
end

-- Moves a hold to a terminal status: off the due index, onto the forget schedule, out of the user's list.
local function finish(h, status)
  h.status = status
  h.ended = NOW
  h.deadline = 0
  save(h)
  due_remove(h.hid)
  if BATCH then
    B_GC[#B_GC + 1] = NOW + RETENTION
    B_GC[#B_GC + 1] = h.hid
    B_SGC = NOW + RETENTION
  else
    redis.call('ZADD', K_GC, NOW + RETENTION, h.hid)
    redis.call('ZADD', K_SGC, 'LT', NOW + RETENTION, EVENT_ID)
  end
  drop_user_hold(h.user, h.hid)
end

-- Frees the seats of a hold whose time ran out and records one SeatExpired per seat in the outbox,
-- in this same atomic step: a seat is never freed without its event, nor an event written twice.
-- Only seats the hold still holds are freed and recorded (a seat booked meanwhile stays BOOKED);
-- returns how many were freed.
local function expire(h)
  local freed = 0
  for _, s in ipairs(h.seats) do
    local mine, _, fence = own(h, s)
    if mine == 'H' then
      freed = freed + 1
      set_seat(s, 'F', '', 0, fence)
      redis.call('XADD', K_OUTBOX, '*', 'type', 'SeatExpired', 'eventId', EVENT_ID, 'seatId', s,
        'holdId', ID_PREFIX .. h.hid, 'userId', h.user, 'expireAt', h.expire, 'fencingToken', h.fence,
        'expiredAt', NOW)
    end
  end
  finish(h, 'EXPIRED')
  return freed
end

-- An ACTIVE hold past its expireAt that nobody swept yet is expired now, by whoever finds it.
local function settle(h)
  if h and h.status == 'ACTIVE' and h.expire <= NOW then expire(h) end
  return h
end
${CHANGE_LOG_WRITE}
-- Starts a call: its keys and arguments (KEYS / ARGV: EVAL's globals, or the library's per-call locals
-- set by its function wrapper, hold-script.ts), Redis time, and fresh per-call state.
local function begin()
  K_SEATS, K_HOLDS, K_DUE, K_USERS, K_OUTBOX, K_GC = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
  K_FENCE, K_META, K_CHANGES, K_SDUE, K_SGC = KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11]
  EVENT_ID, ID_PREFIX, RETENTION = ARGV[1], ARGV[2], tonumber(ARGV[3])
  local t = redis.call('TIME')
  NOW = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  SHARD_BASE = string.sub(K_SDUE, 1, -4)
  cl_reset()
  HB_READY = false
  USER_FIELDS = {}
  BATCH = false
end
`;

/**
 * The head of every hold script run with EVAL (PRELUDE_DEFINITIONS, then begin()): what tests and rare
 * scripts prepend to their body. The store's own scripts run as one Redis function library instead
 * (hold-script.ts), which builds these definitions once, not on every call.
 */
export const PRELUDE = `${PRELUDE_DEFINITIONS}
begin()
`;
