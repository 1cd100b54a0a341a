/**
 * The relay's multi-step changes to an outbox stream, one script each (atomic, and the stream key is
 * declared, so it gets the client's keyPrefix: ioredis does not prefix the key of XGROUP or XINFO).
 */

/** Creates the relay group from the start of the stream ('0'); an existing group is fine. */
export const CREATE_GROUP = `
local ok, err = pcall(redis.call, 'XGROUP', 'CREATE', KEYS[1], ARGV[1], '0', 'MKSTREAM')
if not ok and not string.find(tostring(err), 'BUSYGROUP') then return redis.error_reply(tostring(err)) end
return 1
`;

/**
 * The relay's next batch of stream KEYS[1] for consumer ARGV[2] of group ARGV[1], at most ARGV[3] records,
 * in one round trip: first every record read and never acknowledged, whoever read it (a former owner
 * that died or lost the lease, or this consumer after a failed publish), made ours at once (idle 0),
 * lowest ids first, so a hand-over keeps the order; only when none is left, new records ('>'). The claim
 * goes on past entries deleted meanwhile (Redis 7 drops them from the pending list and returns none), so
 * a new record never overtakes a pending one. Returns the entries (Redis 6.2 returns a deleted one with
 * no fields: the caller acknowledges it).
 */
export const NEXT_BATCH = `
local group, consumer, count = ARGV[1], ARGV[2], ARGV[3]
local cursor = '0-0'
repeat
  local claimed = redis.call('XAUTOCLAIM', KEYS[1], group, consumer, 0, cursor, 'COUNT', count)
  if #claimed[2] > 0 then return claimed[2] end
  cursor = claimed[1]
until cursor == '0-0'
local new = redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', count, 'STREAMS', KEYS[1], '>')
if new then return new[1][2] end
return {}
`;

/**
 * After Kafka acknowledged a batch: copies the malformed records (ARGV[3..2+n], n = ARGV[2]) unchanged to
 * KEYS[2], then acknowledges and deletes every record of the batch (ARGV[3..]). A group lost meanwhile
 * (NOGROUP) has nothing to acknowledge: the records are deleted all the same.
 */
export const SETTLE = `
local group, malformed = ARGV[1], tonumber(ARGV[2])
for i = 3, 2 + malformed do
  local entry = redis.call('XRANGE', KEYS[1], ARGV[i], ARGV[i])[1]
  if entry then
    redis.call('XADD', KEYS[2], '*', 'entryId', ARGV[i], unpack(entry[2]))
  end
end
-- in chunks: unpack() of a whole batch (up to OUTBOX_RELAY_BATCH_SIZE ids) would overflow Lua's stack
local deleted = 0
for from = 3, #ARGV, 500 do
  local ids = {}
  for i = from, math.min(from + 499, #ARGV) do ids[#ids + 1] = ARGV[i] end
  pcall(redis.call, 'XACK', KEYS[1], group, unpack(ids))
  deleted = deleted + redis.call('XDEL', KEYS[1], unpack(ids))
end
return deleted
`;

/**
 * Deletes consumer ARGV[2] of group ARGV[1] if it has no pending record (checked and deleted in one step,
 * so a record it read in between is never dropped from the group). 1 deleted, -1 kept (records pending:
 * another relay claims them), 0 no such stream or group.
 */
export const DELETE_CONSUMER_IF_IDLE = `
local ok, pending = pcall(redis.call, 'XPENDING', KEYS[1], ARGV[1], '-', '+', 1, ARGV[2])
if not ok then return 0 end
if #pending > 0 then return -1 end
return redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
`;

/**
 * Deletes the consumers of group ARGV[1] that have no pending record and have been idle at least ARGV[2]
 * ms, except ARGV[3] (the caller). Each restart of an instance leaves one such name per stream; deleting
 * a live one is harmless (its next read recreates it). Returns the names deleted.
 */
export const REAP_CONSUMERS = `
local ok, consumers = pcall(redis.call, 'XINFO', 'CONSUMERS', KEYS[1], ARGV[1])
if not ok then return {} end
local minIdle, deleted = tonumber(ARGV[2]), {}
for _, c in ipairs(consumers) do
  local f = {}
  for i = 1, #c, 2 do f[c[i]] = c[i + 1] end
  if f.name ~= ARGV[3] and f.pending == 0 and f.idle >= minIdle then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], f.name)
    deleted[#deleted + 1] = f.name
  end
end
return deleted
`;
