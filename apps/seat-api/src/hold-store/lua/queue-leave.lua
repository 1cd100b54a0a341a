-- ARG.userId leaves the queue (entry ARG.entry). A place not yet reached is given up (the numbers behind do
-- not move: its number is passed over when its turn comes). An admitted shopper's pass takes no more
-- holds; their turn ends now if they hold nothing, else with their holds. Replies {'OK', entry} |
-- {'NOT_FOUND'}.
local q = q_get('starts')
if not q then return { 'NOT_FOUND' } end
local e = q_entry(ARG.entry)
if not e or e.user ~= ARG.userId then return { 'NOT_FOUND' } end
if e.state == 'P' or e.state == 'W' then
  e.state = 'L'
  q_save(e)
  redis.call('HINCRBY', q_key(''), 'queued', -1)
elseif e.state == 'A' and e.live == 0 then
  q_end_turn(e, QUEUE_EVENT.FINISHED, 'LEFT')
elseif e.state == 'A' then
  redis.call('HDEL', q_key(':t'), e.hid)
end
return { 'OK', q_view(e, q.starts) }
