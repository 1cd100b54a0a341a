-- One step of the event's queue, by Redis time; any instance may run it at any moment, as often as it
-- likes (each runs it for every queue a few times a second): what it does follows from the time passed
-- since the step before, so steps from several instances, or none from one killed, change nothing.
--   1. Admitted shoppers with no hold end their turn (AdmissionExpired) when their pass ran out, or when
--      nobody read their entry (and so the pass) within idleMs of their admission: a client that left
--      while waiting frees its place under the cap as soon as an idle entry is passed over, not a pass later.
--   2. From the sales start, the pace adds ARG's elapsed share of `rate` a minute to the credit (none while
--      paused; at most a second's worth banked, so a cap that held admission back does not release a
--      burst), and the next numbers are admitted while there is credit (or staff's `extra`) and room under
--      the cap: each gets a pass for passMs (ShopperAdmitted). A number whose entry left, moved or was not
--      seen for idleMs (to the second) is passed over without using credit. At most ARG.maxScan numbers
--      per step.
-- Replies {'OK', figures, admitted entries' waits in ms...} | {'NO_QUEUE'}.
local q = q_get('starts', 'rate', 'cap', 'passMs', 'idleMs', 'paused', 'last', 'serving', 'budget', 'tick',
  'extra')
if not q then return { 'NO_QUEUE' } end
local key, S, scan = q_key(''), SEAT_STATUS_FIELDS, tonumber(ARG.maxScan)
for _, hid in ipairs(redis.call('ZRANGEBYSCORE', q_key(':p'), '-inf', NOW, 'LIMIT', 0, scan)) do
  local e = q_entry(hid)
  if not e or e.state ~= 'A' or e.live > 0 then
    redis.call('ZREM', q_key(':p'), hid)
  elseif e.pass <= NOW then
    q_end_turn(e, QUEUE_EVENT.EXPIRED, 'PASS_EXPIRED')
  elseif not q_collected(e) then
    q_end_turn(e, QUEUE_EVENT.EXPIRED, 'PASS_NOT_COLLECTED')
  else
    redis.call('ZADD', q_key(':p'), e.pass, hid)
  end
end
local waits = {}
if NOW >= q.starts then
  local budget, extra = tonumber(q.budget), q.extra
  if q.paused ~= 1 then
    local since = math.max(0, NOW - math.max(q.tick, q.starts))
    budget = math.min(budget + since * q.rate / 60000, math.max(1, q.rate / 60))
  end
  local active = tonumber(redis.call('HGET', key, 'active'))
  local serving, skipped, admitted = q.serving, 0, 0
  local numbers, sec = q_key(':n'), math.floor(NOW / 1000)
  while serving < q.last and scan > 0 and active < q.cap and (extra > 0 or (q.paused ~= 1 and budget >= 1)) do
    scan = scan - 1
    serving = serving + 1
    local hid = redis.call('HGET', numbers, serving)
    redis.call('HDEL', numbers, serving)
    local e = hid and q_entry(hid)
    if e and e.number == serving and (e.state == 'P' or e.state == 'W') then
      -- seen is kept to the second: an entry seen in the last second is never taken for idle
      if (sec - e.seen - 1) * 1000 >= q.idleMs then
        e.state = 'S'
        skipped = skipped + 1
      else
        e.state = 'A'
        e.pass = NOW + q.passMs
        e.seen = 0
        -- first looked at when a client that has not read its entry since would have been passed over
        redis.call('ZADD', q_key(':p'), math.min(e.pass, NOW + q.idleMs), hid)
        active = active + 1
        admitted = admitted + 1
        waits[#waits + 1] = NOW - e.joined * 1000
        if extra > 0 then extra = extra - 1 else budget = budget - 1 end
        q_record(QUEUE_EVENT.ADMITTED, S.entryId, ID_PREFIX .. hid, S.userId, e.user, S.number, serving,
          S.passExpiresAt, e.pass, S.activeShoppers, active)
      end
      q_save(e)
    end
  end
  redis.call('HSET', key, 'serving', serving, 'budget', string.format('%.6f', budget), 'tick', NOW,
    'extra', extra, 'active', active)
  if admitted + skipped > 0 then
    redis.call('HINCRBY', key, 'queued', -(admitted + skipped))
    redis.call('HINCRBY', key, 'admitted', admitted)
    redis.call('HINCRBY', key, 'skipped', skipped)
  end
end
return { 'OK', q_figures(), unpack(waits) }
