-- Best-available hold: picks ARG.quantity (1 .. ALLOCATION_MAX_SEATS) free seats side by side in one row
-- and holds them for ARG.userId, in one step, under the terms the manifest's HOLD_TERMS name (as
-- create-hold.lua). ARG.section and ARG.category ('' for any) filter the rows; ARG.accessible '1' asks for
-- wheelchair places and their companion seats only (at least one place in the block);
-- ARG.accessibleWhenOthersGone '1' lets an ordinary request have them once no block of other seats fits it
-- (the event's accessibleSeatsForAll). KEY.seatLockPrefix is the prefix of the event's seat lock keys
-- (its seat id appended: holds/seat-lock.ts).
--
-- The seat lock. A hold by seat ids locks its seats before its script runs (@DistributedLock); this one
-- cannot, since its seats are known only here. It needs no lock of its own: the script is atomic, picks
-- only seats that are free in the seats hash, and skips any seat whose lock key exists (a hold, release
-- or confirm of that seat is in flight: the same rule create-hold.lua keeps by checking the lock is its
-- caller's). Its fencing token is a fresh one from the shard's counter, as a lock's acquire would draw,
-- so a paused writer whose lock on one of these seats lapsed earlier is refused by fence_ok afterwards.
-- A per-event allocation lock would serialise every best-available request of an event behind one key
-- (a round trip each) for nothing the script's atomicity does not already give.
--
-- Which block: the rows with a free block of `quantity` seats (runs:q, allocation-index.lua) in rank
-- order; in a row, the block nearest the row's centre that leaves no single free seat alone between it
-- and a taken seat or the row's end, a gap of odd length beside it counting as one seat farther; the
-- first row with such a block wins. When every block strands a
-- seat, the best-ranked block anyway (the rule is "never an orphan when another choice exists").
-- Replies {'OK', hold, 1 when the shard's wake-up must come sooner else 0} | {'NO_INDEX'} (build it:
-- allocation-build.lua, and call again) | {'SEATS_UNAVAILABLE', 'SOLD_OUT' | 'NOT_ENOUGH_TOGETHER', free
-- seats that match, up to quantity} | {'HOLD_LIMIT_EXCEEDED', held, cap} | {'POLICY_CHANGED', version} |
-- {'EVENT_ENDED'}.
local q, section, category = tonumber(ARG.quantity), ARG.section, ARG.category
local accessible = ARG.accessible == '1'
-- a second search, over every free seat, for an ordinary request no block of other seats fits: so the
-- places are sold at the end rather than left empty, yet never taken while other seats would do
local othersGone = ARG.accessibleWhenOthersGone == '1' and not accessible
local everyone = false
local lockPrefix = KEY.seatLockPrefix
local refusal = new_hold_refusal()
if refusal then return refusal end
local admission, entry = q_gate()
if admission then return admission end
local base = alloc_base()
local K_ROWS, K_ROWINFO = base .. 'rows', base .. 'rowinfo'
if redis.call('HGET', K_META, 'ax') ~= '1' then return { 'NO_INDEX' } end

-- A row's info "rank|section|access|category": whether it passes the request's filters, and its access
-- string.
local function row_info(info)
  local _, sec, access, cat = string.match(info, '^([^|]*)|([^|]*)|([^|]*)|(.*)$')
  return (section == '' or sec == section) and (category == '' or cat == category), access
end

-- The seats of a row this request may have, as a free string: wheelchair places and companion seats
-- only go to a request that asks for them, and such a request gets nothing else.
local function for_request(free, access)
  if everyone then return free end
  if access == '' then return accessible and string.rep('0', #free) or free end
  local chars = {}
  for i = 1, #free do
    local c = string.sub(free, i, i)
    local special = string.sub(access, i, i) ~= '.'
    chars[i] = (c == '1' and special == accessible) and '1' or '0'
  end
  return table.concat(chars)
end

-- The block a row offers: first seat number and whether it strands a seat; nil when it has none. An
-- accessible request's block holds at least one wheelchair place (access 'a').
local function best_in_row(free, access)
  local centre = (#free + 1) / 2
  local best, bestDist, bestOrphan
  for from, to in string.gmatch(free, '()1+()') do
    local last = to - 1
    for s = from, last - q + 1 do
      local fits = not accessible or string.find(string.sub(access, s, s + q - 1), 'a', 1, true) ~= nil
      local left, right = s - from, last - (s + q - 1)
      local orphan = left == 1 or right == 1
      -- a gap of odd length beside the block counts as a seat farther from the centre: pairs, the usual
      -- party, fill even gaps to the end, while an odd one ends as a single seat nobody takes
      local dist = math.abs(s + (q - 1) / 2 - centre) + left % 2 + right % 2
      if fits and (best == nil or (bestOrphan and not orphan) or (orphan == bestOrphan and dist < bestDist)) then
        best, bestDist, bestOrphan = s, dist, orphan
      end
    end
  end
  return best, bestOrphan
end

-- The row's best block whose seats a hold may take now: none under a seat lock, each free in the seats
-- hash (the index follows every change; this is the check before the write). A seat that fails is
-- marked taken and the row is looked at again.
local function choose(rowKey, free, access)
  while true do
    local s, orphan = best_in_row(free, access)
    if s == nil then return nil end
    local ok = true
    for i = s, s + q - 1 do
      local id = rowKey .. '-' .. i
      if redis.call('EXISTS', lockPrefix .. id) == 1 or seat(id) ~= 'F' then
        free = string.sub(free, 1, i - 1) .. '0' .. string.sub(free, i + 1)
        ok = false
      end
    end
    if ok then return s, orphan end
  end
end

local pick, pickRow, fallback, fallbackRow
local PAGE = 64
-- the rows that may have a block: with q free seats side by side, or (accessible) with a wheelchair place
local candidates = accessible and base .. 'acc' or base .. 'runs:' .. q
local function search()
  local from = 0
  while pick == nil do
    local rows = redis.call('ZRANGE', candidates, from, from + PAGE - 1)
    if #rows == 0 then break end
    local infos = redis.call('HMGET', K_ROWINFO, unpack(rows))
    local frees = redis.call('HMGET', K_ROWS, unpack(rows))
    for i, rowKey in ipairs(rows) do
      if frees[i] and infos[i] then
        local ok, access = row_info(infos[i])
        if ok then
          local s, orphan = choose(rowKey, for_request(frees[i], access), access)
          if s ~= nil then
            if not orphan then
              pick, pickRow = s, rowKey
              break
            end
            if fallback == nil then fallback, fallbackRow = s, rowKey end
          end
        end
      end
    end
    from = from + PAGE
  end
  if pick == nil then pick, pickRow = fallback, fallbackRow end
end
search()
if pick == nil and othersGone then
  everyone = true
  search()
end

if pick == nil then
  -- no block: how many matching seats are free at all (up to q), for the reason and whether a split would do
  local free, at = 0, 0
  local anyFree = accessible and base .. 'acc' or base .. 'runs:1'
  while free < q do
    local rows = redis.call('ZRANGE', anyFree, at, at + PAGE - 1)
    if #rows == 0 then break end
    local infos = redis.call('HMGET', K_ROWINFO, unpack(rows))
    local frees = redis.call('HMGET', K_ROWS, unpack(rows))
    for i = 1, #rows do
      if frees[i] and infos[i] then
        local ok, access = row_info(infos[i])
        if ok then
          local _, ones = string.gsub(for_request(frees[i], access), '1', '')
          free = free + ones
          if free >= q then break end
        end
      end
    end
    at = at + PAGE
  end
  if free > q then free = q end
  return { 'SEATS_UNAVAILABLE', free == 0 and 'SOLD_OUT' or 'NOT_ENOUGH_TOGETHER', free }
end

local seats, highest = {}, 0
for i = pick, pick + q - 1 do
  local s = pickRow .. '-' .. i
  seats[#seats + 1] = s
  local _, _, _, fence = seat(s)
  if fence > highest then highest = fence end
end

local live, over = user_cap(q)
if not live then return over end

-- a fresh token, above the counter and every fence these seats carry (see the seat lock above)
local counter = tonumber(redis.call('GET', K_FENCE) or 0)
local token = math.max(counter, highest) + 1
redis.call('SET', K_FENCE, token)

local h, sooner = hold_make(seats, token, live, entry)
return { 'OK', view(h), sooner and 1 or 0 }
