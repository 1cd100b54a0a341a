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
-- True when `token` may write seats whose highest fence is `highest`.
local function fence_ok(highest, token)
  local counter = tonumber(redis.call('GET', K_FENCE) or 0)
  if highest > counter then redis.call('SET', K_FENCE, highest) end
  return token <= counter and token >= highest
end

