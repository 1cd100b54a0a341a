-- Sets the held/booked counts a full build found, if the version is still the one the build reached
-- (ARGV[1]): counts kept by the scripts since are then right again, also for an event whose seats
-- predate the change log. Replies 1 when it wrote, 0 when the version moved on.
if tonumber(redis.call('HGET', KEYS[1], 'v') or '0') ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'held', ARGV[2], 'booked', ARGV[3])
return 1
