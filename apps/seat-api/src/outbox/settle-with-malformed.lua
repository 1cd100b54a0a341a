-- The relay's one multi-step change to an outbox stream (atomic: a record is never both moved aside and
-- left in the stream, or deleted without its copy).
--
-- After Kafka acknowledged a batch that holds malformed records: copies the first ARG.malformedCount of
-- ARG.entryIds (the malformed ones) unchanged to KEY.malformedOutbox, then deletes every entry of
-- ARG.entryIds from KEY.outbox.
local ids = ARG.entryIds
for i = 1, tonumber(ARG.malformedCount) do
  local entry = redis.call('XRANGE', KEY.outbox, ids[i], ids[i])[1]
  if entry then
    redis.call('XADD', KEY.malformedOutbox, '*', 'entryId', ids[i], unpack(entry[2]))
  end
end
-- in chunks: unpack() of a whole batch (up to OUTBOX_RELAY_BATCH_SIZE ids) would overflow Lua's stack
local deleted = 0
for from = 1, #ids, 500 do
  local chunk = {}
  for i = from, math.min(from + 499, #ids) do chunk[#chunk + 1] = ids[i] end
  deleted = deleted + redis.call('XDEL', KEY.outbox, unpack(chunk))
end
return deleted
