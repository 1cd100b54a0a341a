-- Staff steer the event's queue while it runs, as one audited staff action (the manifest's STAFF_ACTION
-- arguments). ARG.mode:
--   'pause'   nobody more is admitted (passes already given stay good)
--   'resume'  admission goes on at the pace, with no credit for the time it was paused
--   'pace'    ARG.admitPerMinute and ARG.maxActiveShoppers ('' leaves one as it is)
--   'admit'   ARG.count more shoppers let in as soon as the cap has room, whatever the pace (paused too)
--   'close'   the queue is switched off: holds need no pass any more; every entry and pass is gone
-- Each takes effect at the queue's next step on any instance (queue-tick.lua) and is told on seat.status.
-- Replies {'OK', figures} ({'OK', {}} after 'close'; also for an action applied already),
-- {'ACTION_CANCELLED'} or {'NO_QUEUE'}.
local mark = staff_mark()
if mark == 'X' then return { 'ACTION_CANCELLED' } end
if mark == 'A' then return { 'OK', q_get() and q_figures() or {} } end
local q = q_get()
if not q then return { 'NO_QUEUE' } end
local S, key, mode = SEAT_STATUS_FIELDS, q_key(''), ARG.mode
if mode == 'close' then
  redis.call('UNLINK', unpack(q_keys()))
  q_record(QUEUE_EVENT.CLOSED, S.actionId, ARG.actionId)
  staff_applied()
  return { 'OK', {} }
end
if mode == 'pause' then
  redis.call('HSET', key, 'paused', 1)
  q_record(QUEUE_EVENT.PAUSED, S.actionId, ARG.actionId)
elseif mode == 'resume' then
  redis.call('HSET', key, 'paused', 0, 'tick', NOW)
  q_record(QUEUE_EVENT.RESUMED, S.actionId, ARG.actionId)
else
  if mode == 'admit' then
    redis.call('HINCRBY', key, 'extra', ARG.count)
  else
    if ARG.admitPerMinute ~= '' then redis.call('HSET', key, 'rate', ARG.admitPerMinute) end
    if ARG.maxActiveShoppers ~= '' then redis.call('HSET', key, 'cap', ARG.maxActiveShoppers) end
  end
  local now = redis.call('HMGET', key, 'rate', 'cap')
  q_record(QUEUE_EVENT.UPDATED, S.actionId, ARG.actionId, S.admitPerMinute, now[1], S.maxActiveShoppers,
    now[2], S.letIn, mode == 'admit' and ARG.count or 0)
end
staff_applied()
return { 'OK', q_figures() }
