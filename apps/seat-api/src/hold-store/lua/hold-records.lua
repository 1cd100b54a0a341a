-- Status name -> code of a hold record, and back (the manifest's HOLD_STATUS_CODES).
local STATUS_CODE, STATUS_NAME = HOLD_STATUS, HOLD_STATUS_NAMES

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
           deadline = at(c, r[11]), xkey = r[12] or '', mx = (r[13] or 0) - 1, mt = r[14] or 0, qe = r[15] or '',
           pr = r[16] or '', pl = type(r[17]) == 'table' and r[17] or {} }
end

local function save(h)
  CL_STATUS[h.hid] = h.status
  local c = h.created
  -- [13] the hold's extension cap + 1 and [14] its ttl cap in ms: its own terms (0: none recorded, a hold
  -- made before they were kept, whose caller's caps apply); [15] the queue entry whose admission pass it
  -- was made under (queue.lua), '' for none; [16] what it is priced by (its price-list version, promo code
  -- and ticket types: apps/seat-api/src/pricing/hold-pricing.ts), '' for a hold that is not priced; [17] its
  -- places of general-admission areas {area, quantity...} (places.lua), '' for none
  local r = { h.user, STATUS_CODE[h.status], h.seats, c, h.expire - c, h.max - c, h.ext, h.fence, h.order,
              since(c, h.ended), since(c, h.deadline), h.xkey or '', (h.mx or -1) + 1, h.mt or 0, h.qe or '',
              h.pr or '', (h.pl and #h.pl > 0) and h.pl or '' }
  local n = 17
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
           h.order, h.ended, h.deadline, NOW, h.mx or -1, h.mt or 0, h.pr or '', h.pl or {} }
end

