-- Keeps ARG.pass, the admission pass the service signed for entry ARG.entry, if the entry is still admitted
-- under the pass expiry it was signed for (ARG.passExpiresAt) and has none yet: the gate accepts exactly
-- this pass (queue.lua q_gate). Replies the entry's pass ('' when it is no longer admitted).
local e = q_entry(ARG.entry)
if not e or e.state ~= 'A' or e.pass ~= tonumber(ARG.passExpiresAt) then return '' end
redis.call('HSETNX', q_key(':t'), e.hid, ARG.pass)
return redis.call('HGET', q_key(':t'), e.hid)
