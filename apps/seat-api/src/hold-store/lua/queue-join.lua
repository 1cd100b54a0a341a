-- ARG.userId joins the event's queue as entry ARG.entry (one per user and event: its id derives from them,
-- queue.store.ts). Joined already (waiting, admitted or done): that entry, unchanged but for being seen now.
-- Joined before, then left or skipped: a new place at the back.
-- A place: before the sales start, with order 'shuffle-then-fifo', a random one among those who joined before the
-- start (ARG.random in [0, 1) from the caller: the inside-out Fisher-Yates shuffle, so the numbers given
-- before the start are a uniformly random order of their joiners at every moment, and the start needs no
-- work); otherwise the next number.
-- Replies {'OK', 1 when this call made the place else 0, entry} | {'NO_QUEUE'} | {'NOT_OPEN', opensAt}.
local q = q_get('starts', 'order', 'last', 'pre')
if not q then return { 'NO_QUEUE' } end
if NOW < q.opens then return { 'NOT_OPEN', q.opens } end
local sec = math.floor(NOW / 1000)
local e = q_entry(ARG.entry)
if e and e.user ~= ARG.userId then error('queue entry ' .. ARG.entry .. ' is another user\'s') end
if e and e.state ~= 'L' and e.state ~= 'S' then
  e.seen = sec
  q_save(e)
  return { 'OK', 0, q_view(e, q.starts) }
end
local key, numbers, number = q_key(''), q_key(':n'), nil
if NOW < q.starts and q.order == 'shuffle-then-fifo' then
  local i = q.pre + 1
  number = math.min(i, math.floor(tonumber(ARG.random) * i) + 1)
  if number ~= i then
    local moved = q_entry(redis.call('HGET', numbers, number))
    moved.number = i
    q_save(moved)
    redis.call('HSET', numbers, i, moved.hid)
  end
  redis.call('HSET', key, 'pre', i, 'last', i)
else
  number = q.last + 1
  redis.call('HSET', key, 'last', number)
end
redis.call('HSET', numbers, number, ARG.entry)
redis.call('HINCRBY', key, 'queued', 1)
e = { hid = ARG.entry, user = ARG.userId, number = number, state = NOW < q.starts and 'P' or 'W',
      joined = sec, seen = sec, pass = 0, live = 0 }
q_save(e)
return { 'OK', 1, q_view(e, q.starts) }
