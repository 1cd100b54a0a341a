-- The on-sale queue of an event (queue/; keys in hold-keys.ts), under the event's own key prefix, so in its
-- slot: every hold script sees it in the step that makes or ends a hold. That is how admission counts the
-- shoppers a show is serving exactly, with no drift: a shopper admitted is active until their holds have all
-- ended (confirmed, released or expired) or, if they never hold, until their pass runs out.
--
--   q    HASH  the queue: opens, starts (ms), order ('shuffle-then-fifo' | 'fifo'), rate (admitted per minute), cap
--              (most active shoppers), passMs, idleMs, paused ('1'); and its figures: last (the last number
--              given), pre (numbers given before the start, shuffled), serving (numbers passed: admitted or
--              skipped), active, admitted, queued (waiting, not yet passed), skipped, budget and tick (the
--              pace's credit and when it was last added to), extra (admissions asked for now by staff)
--   q:e  HASH  entry -> cmsgpack {userId, number, state, joined (s), seen (s; 0 from admission until read),
--              pass expiry (ms), live holds}
--   q:n  HASH  number -> entry, until the number is passed
--   q:p  ZSET  entry -> when to look at it next (its pass expiry, or sooner to see whether its pass was picked
--              up), for admitted shoppers who hold nothing yet
--   q:t  HASH  entry -> the admission pass (the JWT the service signed for it)
-- Entry states: P joined before the start (numbers shuffled at the start when order is 'shuffle'), W
-- waiting, A admitted (active), D done (their turn ended), L left, S skipped (idle when their turn came).

local Q_STATE = { P = 'PREQUEUE', W = 'WAITING', A = 'ADMITTED', D = 'DONE', L = 'LEFT', S = 'SKIPPED' }

local function q_key(suffix)
  return SHARD_BASE .. EVENT_ID .. ':q' .. suffix
end

-- Every key of the event's queue.
local function q_keys()
  return { q_key(''), q_key(':e'), q_key(':n'), q_key(':p'), q_key(':t') }
end

-- The queue's fields asked for, as numbers where they are; nil when the event has no queue.
local function q_get(...)
  local names = { ... }
  local values = redis.call('HMGET', q_key(''), 'opens', unpack(names))
  if not values[1] then return nil end
  local out = { opens = tonumber(values[1]) }
  for i, n in ipairs(names) do
    local v = values[i + 1]
    out[n] = tonumber(v) or v
  end
  return out
end

local function q_entry(hid)
  local raw = redis.call('HGET', q_key(':e'), hid)
  if not raw then return nil end
  local r = cmsgpack.unpack(raw)
  return { hid = hid, user = r[1], number = r[2], state = r[3], joined = r[4], seen = r[5], pass = r[6],
           live = r[7] }
end

local function q_save(e)
  redis.call('HSET', q_key(':e'), e.hid,
    cmsgpack.pack({ e.user, e.number, e.state, e.joined, e.seen, e.pass, e.live }))
end

-- An entry as the scripts answer it (queue.store.ts toQueueEntry): its public id, state, number and pass
-- expiry; a place taken before the sales start (`starts`) reads PREQUEUE until then, WAITING after.
local function q_view(e, starts)
  local state = e.state
  if state == 'P' and NOW >= starts then state = 'W' end
  return { ID_PREFIX .. e.hid, Q_STATE[state], e.number, e.pass }
end

-- Records a queue change for the seat.status topic, in the step that makes it (as status_change does for a
-- hold's). `...`: the fields of its type, name then value.
local function q_record(kind, ...)
  if SEAT_STATUS_STREAM == 0 then return end
  local S = SEAT_STATUS_FIELDS
  redis.call('XADD', K_OUTBOX, '*', S.type, kind, S.eventId, EVENT_ID, S.at, NOW, ...)
end

-- Ends an admitted shopper's turn: no longer active, their pass no longer takes holds. `kind`: what the
-- stream is told (QUEUE_EVENT.EXPIRED, the pass ran out unused; QUEUE_EVENT.FINISHED, their holds ended or
-- they left), `reason` with it.
local function q_end_turn(e, kind, reason)
  e.state = 'D'
  q_save(e)
  redis.call('ZREM', q_key(':p'), e.hid)
  redis.call('HDEL', q_key(':t'), e.hid)
  local active = redis.call('HINCRBY', q_key(''), 'active', -1)
  local S = SEAT_STATUS_FIELDS
  q_record(kind, S.entryId, ID_PREFIX .. e.hid, S.userId, e.user, S.number, e.number, S.reason, reason,
    S.activeShoppers, active)
end

-- Whether admitted entry e has been read (its pass picked up) since its admission, which set `seen` to 0.
local function q_collected(e)
  return e.seen > 0
end

-- Whether the event's queue stands between a shopper and a hold now: configured, and opened by Redis time.
local function q_gates()
  local q = q_get()
  return q ~= nil and NOW >= q.opens
end

-- The gate of a new hold (create-hold.lua, best-available.lua), or nil when it may go on: while the queue
-- is open, a hold needs an admission pass (ARG.queueEntry, ARG.queuePass) of this user, the one the service
-- issued for that entry, still admitted and unexpired by Redis time; staff and waiting-list offers go
-- without (ARG.queueBypass '1'). Refusals: {'QUEUE_REQUIRED'} | {'ADMISSION_INVALID', why}. Also returns
-- the entry to charge the hold to.
local function q_gate()
  if ARG.queueBypass == '1' or not q_gates() then return nil end
  if ARG.queueEntry == '' then return { 'QUEUE_REQUIRED' } end
  local e = q_entry(ARG.queueEntry)
  if not e or e.user ~= ARG.userId or redis.call('HGET', q_key(':t'), e.hid) ~= ARG.queuePass then
    return { 'ADMISSION_INVALID', 'NOT_ISSUED' }
  end
  if e.state ~= 'A' then return { 'ADMISSION_INVALID', 'USED' } end
  if e.pass <= NOW then return { 'ADMISSION_INVALID', 'EXPIRED' } end
  return nil, e
end

-- Hold h was made under entry e's pass: e counts its live holds, and its pass window no longer ends its
-- turn (its holds do). The hold keeps the entry, for q_hold_ended.
local function q_charge(e, h)
  e.live = e.live + 1
  q_save(e)
  redis.call('ZREM', q_key(':p'), e.hid)
  h.qe = e.hid
end

-- Hold h ended (finish(), hold-lifecycle.lua): the last live hold of an admitted shopper ends their turn.
local function q_hold_ended(h, status)
  if not h.qe or h.qe == '' then return end
  local e = q_entry(h.qe)
  if not e or e.live == 0 then return end
  e.live = e.live - 1
  if e.live > 0 or e.state ~= 'A' then
    q_save(e)
    return
  end
  q_end_turn(e, QUEUE_EVENT.FINISHED, status)
end

-- The queue's public figures and settings, in QUEUE_FIGURES order (queue.store.ts reads them so).
local function q_figures()
  local v = redis.call('HMGET', q_key(''), unpack(QUEUE_FIGURES))
  for i = 1, #v do v[i] = v[i] or '' end
  return v
end
