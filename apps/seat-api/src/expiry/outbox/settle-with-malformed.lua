-- The relay's one multi-step change to an outbox stream (atomic: a record is never both moved aside and
-- left in the stream, or deleted without its copy).
--
-- After Kafka acknowledged a batch that holds malformed records: copies those (ARGV[2..1+n],
-- n = ARGV[1]) unchanged to KEYS[2], then deletes every record of the batch (ARGV[2..]) from KEYS[1].
local malformed = tonumber(ARGV[1])
for i = 2, 1 + malformed do
  local entry = redis.call('XRANGE', KEYS[1], ARGV[i], ARGV[i])[1]
  if entry then
    redis.call('XADD', KEYS[2], '*', 'entryId', ARGV[i], unpack(entry[2]))
  end
end
-- in chunks: unpack() of a whole batch (up to OUTBOX_RELAY_BATCH_SIZE ids) would overflow Lua's stack
local deleted = 0
for from = 2, #ARGV, 500 do
  local ids = {}
  for i = from, math.min(from + 499, #ARGV) do ids[#ids + 1] = ARGV[i] end
  deleted = deleted + redis.call('XDEL', KEYS[1], unpack(ids))
end
return deleted
