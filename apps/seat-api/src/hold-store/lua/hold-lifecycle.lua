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
  q_hold_ended(h, status)
end

-- Records a change of hold h for the seat.status topic in the shard's outbox (SEAT_STATUS_FIELDS), in the
-- atomic step that makes it, as expire() records its SeatExpired: the relay publishes them all in the order
-- written, so one show's changes reach Kafka in order. `seats`: the seats it concerns; `...`: the fields of
-- its type, name then value. Nothing is written while the stream is off (SEAT_STATUS_STREAM, a constant of
-- the loaded library).
-- A hold with places of general-admission areas tells them too (S.places: "FLOOR:2,BALCONY:1").
local function status_change(kind, h, seats, ...)
  if SEAT_STATUS_STREAM == 0 then return end
  local S = SEAT_STATUS_FIELDS
  if #(h.pl or {}) > 0 then
    redis.call('XADD', K_OUTBOX, '*', S.type, kind, S.eventId, EVENT_ID, S.holdId, ID_PREFIX .. h.hid,
      S.userId, h.user, S.seatIds, table.concat(seats, ','), S.places, places_text(h), S.at, NOW, ...)
    return
  end
  redis.call('XADD', K_OUTBOX, '*', S.type, kind, S.eventId, EVENT_ID, S.holdId, ID_PREFIX .. h.hid,
    S.userId, h.user, S.seatIds, table.concat(seats, ','), S.at, NOW, ...)
end

-- Records a change of seats that no hold makes (staff blocking or unblocking them, as action `action`) for
-- the seat.status topic, as status_change does for a hold's.
local function seats_change(kind, seats, action)
  if SEAT_STATUS_STREAM == 0 then return end
  local S = SEAT_STATUS_FIELDS
  redis.call('XADD', K_OUTBOX, '*', S.type, kind, S.eventId, EVENT_ID, S.seatIds, table.concat(seats, ','),
    S.actionId, action, S.at, NOW)
end

-- The call's staff action (the manifest's STAFF_ACTION arguments, and the event's staff ledger KEY.staffLedger:
-- action id -> 'A' applied or 'X' given up, settle-staff-action.lua): its mark in the ledger, if any.
local function staff_mark()
  return redis.call('HGET', KEY.staffLedger, ARG.actionId)
end

-- Marks the call's staff action applied ('A') in the event's staff ledger, kept ARG.ledgerTtlMs, and
-- records its StaffActionRecorded for the seat.status topic in the same step: the stream tells of exactly
-- the actions whose change was made (none for one given up or refused), as the audit's entry settled
-- from this mark does.
local function staff_applied()
  redis.call('HSET', KEY.staffLedger, ARG.actionId, 'A')
  redis.call('PEXPIRE', KEY.staffLedger, ARG.ledgerTtlMs)
  if SEAT_STATUS_STREAM == 0 then return end
  local S = SEAT_STATUS_FIELDS
  redis.call('XADD', K_OUTBOX, '*', S.type, SEAT_STATUS.STAFF, S.eventId, EVENT_ID, S.actionId, ARG.actionId,
    S.actor, ARG.actor, S.action, ARG.auditAction, S.target, ARG.target, S.reason, ARG.reason, S.at, NOW)
end

-- Frees the seats of a hold whose time ran out and records one SeatExpired per seat in the outbox,
-- in this same atomic step: a seat is never freed without its event, nor an event written twice.
-- Only seats the hold still holds are freed and recorded (a seat booked meanwhile stays BOOKED);
-- returns how many were freed. Its places go back to their areas in the same step, with one SeatExpired
-- per area: seatId the area's name, `area` and `quantity` saying how many places (places.lua).
local function expire(h)
  local freed = 0
  local pl = h.pl or {}
  if #pl > 0 then
    places_move(h, -1, 0)
    local F = SEAT_EXPIRED_FIELDS
    for i = 1, #pl, 2 do
      redis.call('XADD', K_OUTBOX, '*', F.type, SEAT_EXPIRED_TYPE, F.eventId, EVENT_ID, F.seatId, pl[i],
        F.holdId, ID_PREFIX .. h.hid, F.userId, h.user, F.expireAt, h.expire, F.fencingToken, h.fence,
        F.expiredAt, NOW, F.area, pl[i], F.quantity, pl[i + 1])
    end
  end
  for _, s in ipairs(h.seats) do
    local mine, _, fence = own(h, s)
    if mine == 'H' then
      freed = freed + 1
      set_seat(s, 'F', '', 0, fence)
      local F = SEAT_EXPIRED_FIELDS
      redis.call('XADD', K_OUTBOX, '*', F.type, SEAT_EXPIRED_TYPE, F.eventId, EVENT_ID, F.seatId, s,
        F.holdId, ID_PREFIX .. h.hid, F.userId, h.user, F.expireAt, h.expire, F.fencingToken, h.fence,
        F.expiredAt, NOW)
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

-- Releases ACTIVE hold h with fencing token `token` (its owner's release, a staff force release): frees
-- the seats it still holds and records its HoldReleased with `reason` (RELEASE_REASON). False, and
-- nothing written, when the token is stale (fence_ok).
local function release(h, token, reason)
  local mine, highest = held_seats(h)
  if not fence_ok(highest, token) then return false end
  set_seats(mine, 'F', '', 0, token)
  places_move(h, -1, 0)
  h.fence = token
  finish(h, 'RELEASED')
  status_change(SEAT_STATUS.RELEASED, h, mine, SEAT_STATUS_FIELDS.reason, reason)
  return true
end
