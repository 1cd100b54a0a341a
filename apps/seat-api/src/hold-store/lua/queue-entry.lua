-- ARG.userId reads their entry ARG.entry (anyone else's is not found), and is seen now: an entry not seen
-- for the queue's idle time when its turn comes is skipped, and an admitted one not seen within it after
-- its admission ends its turn (queue-tick.lua). A pass that ran out
-- unused ends its turn here as the next step would. Replies {'OK', entry, the pass issued for it or ''} |
-- {'NOT_FOUND'}.
local q = q_get('starts')
if not q then return { 'NOT_FOUND' } end
local e = q_entry(ARG.entry)
if not e or e.user ~= ARG.userId then return { 'NOT_FOUND' } end
if e.state == 'A' and e.live == 0 and e.pass <= NOW then q_end_turn(e, QUEUE_EVENT.EXPIRED, 'PASS_EXPIRED') end
local sec = math.floor(NOW / 1000)
if (e.state == 'P' or e.state == 'W' or e.state == 'A') and e.seen < sec then
  e.seen = sec
  q_save(e)
end
return { 'OK', q_view(e, q.starts), e.state == 'A' and redis.call('HGET', q_key(':t'), e.hid) or '' }
