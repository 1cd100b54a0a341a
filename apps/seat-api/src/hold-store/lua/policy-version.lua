-- The event's policy version in its meta hash (`pv`), which every new hold is checked against
-- (new_hold_refusal, hold-growth.lua). ARG.mode 'raise' or 'drop', ARG.version, ARG.orphanRule (raise:
-- that version's rule; drop: '').
-- raise: stores the version unless the stored one is as high: versions only go up, so an instance that
-- loaded an older policy never puts it back over a newer change. The rule goes with it (meta `or`,
-- allocation-index.lua), in this one step: a hold by seat ids made under a version (create-hold.lua) is
-- checked against its rule. Where Redis has no version at all (an event new to Redis, or a Redis that lost
-- its data) it is stored only by a caller that has just put the event's booked and blocked seats back
-- from PostgreSQL (ARG.afterRepair '1', EventRepair); any other caller is answered 'UNREPAIRED' and nothing
-- is written. So no hold passes before those seats are back, on any instance.
-- drop: deletes the version if it is that one (a change whose PostgreSQL commit failed: the next hold then
-- reloads the policy from PostgreSQL).
-- Replies the version stored afterwards, '' for none, or 'UNREPAIRED'.
-- An event whose keys the sweep deleted is not written again (event-retention.lua): raise stores nothing.
if ARG.mode == 'raise' and event_removed() then return '' end
local v, pv = tonumber(ARG.version), redis.call('HGET', K_META, 'pv')
if ARG.mode == 'raise' then
  if not pv and ARG.afterRepair ~= '1' then return 'UNREPAIRED' end
  if not pv or tonumber(pv) < v then
    redis.call('HSET', K_META, 'pv', ARG.version, 'or', ARG.orphanRule)
    return ARG.version
  end
  return pv
end
if pv and tonumber(pv) == v then
  redis.call('HDEL', K_META, 'pv')
  return ''
end
return pv or ''
