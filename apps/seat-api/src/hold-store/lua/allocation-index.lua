-- The free-seat index best-available holds search (best-available.lua), kept per event beside its seats
-- and changed by log_changes() in the same atomic step as every seat change (hold-keys.ts lists the keys):
--   rows    HASH rowKey -> one character per seat of the row, by seat number: '1' free, '0' taken
--   rowinfo HASH rowKey -> "rank|section|access|category": the row's rank (lower is better), what filters
--                read, and its access string ('a' wheelchair place, 'c' companion seat, '.' neither, by
--                seat number; '' when the row has neither)
--   acc     ZSET rowKey -> rank: the rows with a wheelchair place
--   runs:q  ZSET rowKey -> rank, for q = 1 .. ALLOCATION_MAX_SEATS: the rows with q free seats side by side
-- A row is a seat id's text before its last '-' (`<section>-<row>-<number>`, catalogue/), so the index
-- needs no map of seat ids. Why an index: with 90 % of a large event taken at random a block of 4 free
-- seats is rare (about one position in 10,000), so finding one by reading the seats hash reads nearly
-- every seat; runs:q lists the rows that have one, best first, and a change of a seat costs one row's
-- string (at most 500 characters) read and written.
-- A held seat counts as taken until its hold is released or swept, even past its expireAt: the sweep
-- frees it soon after, and best-available never takes a seat whose lapsed hold was not yet settled.
-- An event whose index was never built (rowinfo missing) pays one HGET per row a script changes.

local function alloc_base() return string.sub(K_SEATS, 1, -6) end

-- Every key of the index: the sweep deletes them with the event's other keys.
local function alloc_keys()
  local base = alloc_base()
  local keys = { base .. 'rows', base .. 'rowinfo', base .. 'acc' }
  for q = 1, ALLOCATION_MAX_SEATS do keys[#keys + 1] = base .. 'runs:' .. q end
  return keys
end

-- The longest run of '1' in a row string, capped at ALLOCATION_MAX_SEATS.
local function alloc_longest(free)
  local best = 0
  for run in string.gmatch(free, '1+') do
    if #run > best then best = #run end
  end
  if best > ALLOCATION_MAX_SEATS then best = ALLOCATION_MAX_SEATS end
  return best
end

-- Files a row's new string: the runs:q sets whose membership its longest run changed, then the string.
local function alloc_store_row(base, rowKey, rank, before, after)
  local was, now = alloc_longest(before), alloc_longest(after)
  if now > was then
    for q = was + 1, now do redis.call('ZADD', base .. 'runs:' .. q, rank, rowKey) end
  elseif now < was then
    for q = now + 1, was do redis.call('ZREM', base .. 'runs:' .. q, rowKey) end
  end
  redis.call('HSET', base .. 'rows', rowKey, after)
end

-- The changes this call wrote (change-tracking.lua CL_ORDER / CL_AFTER), applied to the index: a seat
-- written 'F' is free, anything else taken. Rows are read and written once each.
local function alloc_index_changes()
  if #CL_ORDER == 0 then return end
  local base, byRow, order = alloc_base(), {}, {}
  for _, s in ipairs(CL_ORDER) do
    local rowKey, n = string.match(s, '^(.+)%-(%d+)$')
    if rowKey then
      local marks = byRow[rowKey]
      if not marks then
        marks = {}
        byRow[rowKey] = marks
        order[#order + 1] = rowKey
      end
      marks[tonumber(n)] = CL_AFTER[s][1] == 'F' and '1' or '0'
    end
  end
  for _, rowKey in ipairs(order) do
    local before = redis.call('HGET', base .. 'rows', rowKey)
    if before then
      local chars = {}
      for i = 1, #before do chars[i] = string.sub(before, i, i) end
      for n, c in pairs(byRow[rowKey]) do
        if n >= 1 and n <= #before then chars[n] = c end
      end
      local after = table.concat(chars)
      if after ~= before then
        local info = redis.call('HGET', base .. 'rowinfo', rowKey)
        alloc_store_row(base, rowKey, tonumber(string.match(info, '^([^|]+)')), before, after)
      end
    end
  end
end

-- The orphan-seat rule of the event (meta `or`: written with each policy version, policy-version.lua, and
-- with the index if none is there yet, allocation-build.lua): with 'no-single-gaps' a hold by seat ids
-- may not leave exactly one free seat between taken seats, or between a taken seat and the row's end,
-- unless the row leaves no other way: no free run of the row (as it was before the hold) could seat as
-- many as the hold takes in it without leaving one alone (a run of exactly that many, or of two more or
-- longer). Seats that were alone before are no concern of this hold, and releases are never refused
-- (they do not call this).
-- Returns the first seat the hold would strand, or nil. A row the index does not have is not checked.
local function orphan_stranded(seatIds)
  if redis.call('HGET', K_META, 'or') ~= 'no-single-gaps' then return nil end
  local base, byRow, order = alloc_base(), {}, {}
  for _, s in ipairs(seatIds) do
    local rowKey, n = string.match(s, '^(.+)%-(%d+)$')
    if rowKey then
      if not byRow[rowKey] then
        byRow[rowKey] = { count = 0 }
        order[#order + 1] = rowKey
      end
      local taking = byRow[rowKey]
      if not taking[tonumber(n)] then taking.count = taking.count + 1 end
      taking[tonumber(n)] = true
    end
  end
  for _, rowKey in ipairs(order) do
    local free = redis.call('HGET', base .. 'rows', rowKey)
    if free then
      local taking, n = byRow[rowKey], #free
      -- before: the seats this hold takes count as free (a lapsed hold's seat is taken over)
      local function freeBefore(i) return taking[i] or string.sub(free, i, i) == '1' end
      local function freeAfter(i) return not taking[i] and string.sub(free, i, i) == '1' end
      local stranded
      for i = 1, n do
        local lone = freeAfter(i) and (i == 1 or not freeAfter(i - 1)) and (i == n or not freeAfter(i + 1))
        if lone and (taking[i - 1] or taking[i + 1]) then
          stranded = i
          break
        end
      end
      if stranded then
        local k, run, otherWay = taking.count, 0, false
        for i = 1, n + 1 do
          if i <= n and freeBefore(i) then
            run = run + 1
          else
            if run == k or run >= k + 2 then otherWay = true end
            run = 0
          end
        end
        if otherWay then return rowKey .. '-' .. stranded end
      end
    end
  end
  return nil
end
