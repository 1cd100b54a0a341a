-- Staff set up the event's on-sale queue (queue.lua), as one audited staff action (the manifest's
-- STAFF_ACTION arguments): ARG.opensAt (ms: joining opens), ARG.salesStartAt (ms: admission starts; those
-- who joined before are shuffled when ARG.order is 'shuffle-then-fifo'), ARG.admitPerMinute, ARG.maxActiveShoppers,
-- ARG.passTtlMs, ARG.idleEntryTtlMs. A queue not yet open is replaced whole; once open (Redis time) its
-- times and order stay, refused {'QUEUE_OPEN'} (its pace and cap change by queue-control.lua).
-- Replies {'OK', figures} (also for an action applied already), {'ACTION_CANCELLED'}, {'QUEUE_OPEN'} or
-- {'EVENT_ENDED'}.
local mark = staff_mark()
if mark == 'X' then return { 'ACTION_CANCELLED' } end
if mark == 'A' then return { 'OK', q_figures() } end
if event_ended() then return { 'EVENT_ENDED' } end
local q = q_get()
if q and NOW >= q.opens then return { 'QUEUE_OPEN' } end
-- before it opens nobody can have joined: its keys hold only the settings being replaced
redis.call('DEL', unpack(q_keys()))
redis.call('HSET', q_key(''), 'opens', ARG.opensAt, 'starts', ARG.salesStartAt, 'order', ARG.order,
  'rate', ARG.admitPerMinute, 'cap', ARG.maxActiveShoppers, 'passMs', ARG.passTtlMs,
  'idleMs', ARG.idleEntryTtlMs, 'paused', 0, 'last', 0, 'pre', 0, 'serving', 0, 'active', 0, 'admitted', 0,
  'queued', 0, 'skipped', 0, 'budget', 0, 'tick', ARG.salesStartAt, 'extra', 0)
local S = SEAT_STATUS_FIELDS
q_record(QUEUE_EVENT.OPENED, S.actionId, ARG.actionId, S.opensAt, ARG.opensAt, S.salesStartAt,
  ARG.salesStartAt, S.order, ARG.order, S.admitPerMinute, ARG.admitPerMinute, S.maxActiveShoppers,
  ARG.maxActiveShoppers)
staff_applied()
return { 'OK', q_figures() }
