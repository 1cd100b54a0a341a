-- Shared head of every hold script. Every call starts with the event's keys (manifest.ts EVENT_KEYS: its
-- seats, holds (the prefix of its buckets), due (the head of its buckets), users, the outbox stream of its
-- shard, its gc, the fencing counter its seat locks draw from (the shard's), its meta and changes (the
-- seat-map log), and the shard's due and gc: all under the shard's hash tag (see hold-keys.ts), so one
-- slot) and arguments (EVENT_ARGV: event id, public hold-id prefix, retention ms of ended holds), then
-- the script's own; begin() copies the event's into the K_* variables below. seat(), set_seat() and
-- save() note every change, and log_changes() records them once the script body is done
-- (change-log.lua; hold-script.ts runs it after every script).
--
-- The shard sweep (sweep-shard.lua) visits several events in one call: use_event() points the per-event
-- K_* variables (upvalues of every function here) and EVENT_ID / ID_PREFIX at another event of the shard,
-- building its key names from the shard's own key: same hash tag, hence the same slot as the declared keys.
--
-- Time is Redis TIME, read once per call (begin()): every instance agrees on "now" whatever its own clock
-- says. The store runs these scripts as functions of one library (hold-script.ts): the helper files
-- are built once per load, and begin() sets each call's keys, arguments, time and fresh per-call state.
--
-- A hold record (the value in its holds:<b> bucket, written by save() only) is a positional cmsgpack
-- array, packed small because there is one per hold (see hold-keys.ts for what it costs):
--   {userId, status code (HOLD_STATUS_CODES), seatIds, createdAt, expireAt - createdAt,
--    maxExpireAt - createdAt, extensions, fence, orderId, endedAt - createdAt + 1, confirmDeadline - createdAt + 1,
--    the request key of its last extension (extend-hold.lua)}
-- Times after createdAt are kept as offsets from it (a few bytes instead of 9 for an epoch ms); endedAt
-- and confirmDeadline are 0 for "none", hence the +1 (a hold may end in the ms it was made). Trailing
-- fields at their default ('' or 0) are left out: an ACTIVE hold's record has 8 fields.

-- Per call (set by begin()): the keys and arguments of the call, Redis time.
local K_SEATS, K_HOLDS, K_DUE, K_USERS, K_OUTBOX, K_GC, K_FENCE, K_META, K_CHANGES, K_SDUE, K_SGC
local EVENT_ID, ID_PREFIX, RETENTION, NOW, SHARD_BASE
