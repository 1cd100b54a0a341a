-- Sets the held/booked counts a full build found (ARG.held, ARG.booked), if the version is still the one
-- the build reached (ARG.version): counts kept by the scripts since are then right again, also for an
-- event whose seats predate the change log. Replies 1 when it wrote, 0 when the version moved on.
if tonumber(redis.call('HGET', KEY.meta, 'v') or '0') ~= tonumber(ARG.version) then return 0 end
redis.call('HSET', KEY.meta, 'held', ARG.held, 'booked', ARG.booked)
return 1
