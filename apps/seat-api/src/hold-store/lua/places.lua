-- General-admission areas (docs/areas.md, ADR 0012): places are counted, not named. Each event has one small
-- hash `areas` (hold-keys.ts) with one field per area, "capacity|held|booked|blocked", so its memory does not
-- grow with an area's capacity, only with the holds (whose records name their places). A hold's places are
-- taken and given back in the same Lua step as its seats: the step alone decides, so no seat lock is needed
-- for places (a counter cannot be taken twice).
--
-- A hold's places (its record's field 17, h.pl) are a flat list {area, quantity, area, quantity...}.
-- `held` counts the places of ACTIVE and CONFIRMING holds, lapsed or not: a hold that ran out gives its
-- places back when it is expired (by the sweeper, or by a hold that finds its area short: places_take).
-- A field missing (Redis lost its data) is an area not yet repaired: nothing is taken from it, nothing
-- written to it, until EventRepair puts it back from PostgreSQL (areas-repair.lua).

-- The event's areas hash: "<base>meta" -> "<base>areas", same {s<k>} tag, so the same slot.
local function areas_key()
  return string.sub(K_META, 1, -5) .. 'areas'
end

-- The area's counts {capacity, held, booked, blocked} as this call sees them (read once), or nil.
local function area_get(name)
  local a = AREA_NOW[name]
  if a then return a end
  local v = redis.call('HGET', areas_key(), name)
  if not v then return nil end
  local c, h, b, x = string.match(v, '^(%d+)|(%d+)|(%d+)|(%d+)$')
  a = { tonumber(c), tonumber(h), tonumber(b), tonumber(x) }
  AREA_NOW[name] = a
  return a
end

local function area_free(a)
  local free = a[1] - a[2] - a[3] - a[4]
  if free < 0 then return 0 end
  return free
end

-- Changes an area's held, booked and blocked counts by these deltas (never below 0); written once per
-- call by areas_flush. An area that is missing is left to its repair.
local function area_add(name, held, booked, blocked)
  local a = area_get(name)
  if not a then return end
  a[2], a[3], a[4] = math.max(0, a[2] + held), math.max(0, a[3] + booked), math.max(0, a[4] + blocked)
  if not AREA_DIRTY[name] then
    AREA_DIRTY[name] = true
    AREA_ORDER[#AREA_ORDER + 1] = name
  end
end

-- How many places a hold has.
local function places_count(h)
  local n = 0
  local pl = h.pl or {}
  for i = 2, #pl, 2 do n = n + tonumber(pl[i]) end
  return n
end

-- The areas of `places` (flat list) that have too few free places: {{area, free}...}; an area missing is
-- one with 0 free.
local function places_short(places)
  local short = {}
  for i = 1, #places, 2 do
    local a = area_get(places[i])
    local free = a and area_free(a) or 0
    if free < tonumber(places[i + 1]) then short[#short + 1] = { places[i], free } end
  end
  return short
end

-- Moves a hold's places between counts: `held`, `booked` are -1, 0 or 1 (e.g. -1, 1: held -> booked).
local function places_move(h, held, booked)
  local pl = h.pl or {}
  for i = 1, #pl, 2 do
    local q = tonumber(pl[i + 1])
    area_add(pl[i], held * q, booked * q, 0)
  end
end

-- The areas this hold names, as one text "FLOOR:2,BALCONY:1" for the seat.status records.
local function places_text(h)
  local parts, pl = {}, h.pl or {}
  for i = 1, #pl, 2 do parts[#parts + 1] = pl[i] .. ':' .. pl[i + 1] end
  return table.concat(parts, ',')
end

-- Writes the areas this call changed (one HSET) and returns the change log's fields for them:
-- '@<area>' -> "capacity|held|booked|blocked", as the hash has it (seat ids never start with '@').
local function areas_flush()
  if #AREA_ORDER == 0 then return {} end
  local args, fields = {}, {}
  for _, name in ipairs(AREA_ORDER) do
    local a = AREA_NOW[name]
    local v = a[1] .. '|' .. a[2] .. '|' .. a[3] .. '|' .. a[4]
    args[#args + 1] = name
    args[#args + 1] = v
    fields[#fields + 1] = '@' .. name
    fields[#fields + 1] = v
  end
  redis.call('HSET', areas_key(), unpack(args))
  return fields
end
