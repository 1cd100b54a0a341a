/**
 * Redis layout of the hold store: the one place it is written down. (The ioredis keyPrefix is added on
 * top of every key.)
 *
 * SHARDS. An event belongs to shard k = fnv1a32(lower-case event id) mod HOLD_SHARDS (default 64), and
 * every key of the event, every key of the shard, its seat lock keys and its fencing counter carry the
 * shard's hash tag `{s<k>}`: one Cluster slot per shard, so every script touches one slot and stays
 * atomic, and a Cluster spreads the shards (hence the events) over its masters. Background work (sweeper,
 * relay, garbage collection of old events) visits shards, never events: its cost is O(shards + due).
 *
 * Per event (`hold:{s<k>}:<eventId>:…`):
 *   seats   HASH  seatId -> "H|hid|expireAtMs|fence" (held), "B|hid|0|fence" (booked; "B||0|fence" when
 *                 restored from PostgreSQL), "F||0|fence" (free). A freed seat keeps its last fencing token, so
 *                 a stale lock holder cannot write after a release. Lock-free readers (lua/seat-conflicts.lua,
 *                 the seat-map scan in seat-change-log.ts) need expireAt here, without the hold's record.
 *   holds:<b> HASH hid -> packed cmsgpack record (lua/hold-records.lua): positional, a status code, times
 *                 as offsets from createdAt, trailing defaults left out (~40 B for an ACTIVE 1-seat hold)
 *   due:<b> ZSET  hid -> expireAtMs for ACTIVE holds, confirm deadline for CONFIRMING ones
 *   due     ZSET  b -> the earliest due time in due:<b> (or earlier: ZADD LT, set right by the sweep)
 *                 Hold buckets b = 0 .. 2^hl + hp - 1 (lua/hold-buckets.lua): a hold's bucket follows
 *                 from its hid; buckets split one at a time (linear hashing) as the event's records grow,
 *                 about 48 records each, so each stays a listpack (Redis's compact encoding below 128
 *                 entries and 64-byte values) instead of one hashtable / skiplist per event.
 *   users   HASH  bucket -> "\n<userId>=<hid>,<hid>...\n<userId>=...": the live holds of each user (per-user
 *                 seat cap), users packed into 4,096 buckets by the first 3 hex digits of SHA-1(userId)
 *                 (lua/user-index.lua user_entry; ~25 B per user instead of a ~74 B field of its own)
 *   gc      ZSET  hid -> when an ended hold may be forgotten (after HOLD_RETENTION_SECONDS)
 *   meta    HASH  v = the event's change version (bumped once per change-log entry), e = the change log's
 *                 epoch (Redis TIME when versions started again at 1, lua/change-log.lua); held / booked =
 *                 how many seats the seats hash holds as 'H' (lapsed or not) and 'B'; hold buckets: hl
 *                 (level), hp (split pointer), hn (hold records); pv = the policy version every new hold is
 *                 checked against, or = its orphan-seat rule (lua/policy-version.lua); ax = '1' once the
 *                 free-seat index is built; over = '1' once the event takes no hold (lua/event-retention.lua)
 *   areas   HASH  area name -> "capacity|held|booked|blocked": the event's general-admission areas
 *                 (lua/places.lua), one field each whatever its capacity; held counts the places of live
 *                 holds (lapsed ones until expired); set by EventRepair (lua/areas-repair.lua)
 *   changes STREAM the change log seat-map readers follow (lua/change-log.lua): entry id `<v>-0`, fields
 *                 seatId -> 'A' (available), 'B' (booked), 'H<expireAtMs>' (held until then) or 'H0'
 *                 (held while a confirm is in flight, whatever the time), and '@<area>' ->
 *                 "capacity|held|booked|blocked" for an area the change touched; trimmed to about
 *                 CHANGE_LOG_MAX_ENTRIES entries
 *   staff   HASH  actionId -> 'A' (applied, lua/hold-lifecycle.lua staff_applied: force release, hold on
 *                 behalf, block, unblock, booking cancel, the queue's set-up and controls) or 'X' (given up,
 *                 lua/settle-staff-action.lua): the staff actions that changed this event's seats or queue,
 *                 by which their audit entries in PostgreSQL are settled; kept HOLD_RETENTION_SECONDS after
 *                 its last write (PEXPIRE), not removed with the event
 *   q, q:e, q:n, q:p, q:t  the event's on-sale queue, if it has one (lua/queue.lua says what each holds);
 *                 deleted with the event
 *   rows, rowinfo, runs:1 .. runs:10, acc  the free-seat index (lua/allocation-index.lua): per row
 *                 `<section>-<row>` its seats free or taken, its rank, section, category and wheelchair /
 *                 companion seats; the rows with 1 .. 10 free seats side by side, and those with a
 *                 wheelchair place, by rank. Read by best-available holds and the orphan-seat rule; built
 *                 at an instance's first load of the event (or its first best-available hold after Redis
 *                 lost it), kept by every seat change after, deleted with the event
 *
 * What a held seat costs, per kind of key, is measured by `npm run bench:store` (bench/README.md, with
 * the report in bench/results/store.md). Hold records and due entries live in buckets because Redis keeps
 * a small hash or sorted set as a listpack, smaller per entry than one hashtable and one skiplist per event
 * would be. A record above 64 B (4 seat ids, or a long user id) passes Redis's listpack value limit
 * and turns its bucket into a hashtable. Small events pay more per held seat for their few keys.
 *
 * Per shard (`hold:{s<k>}:…`):
 *   due     ZSET  eventId -> the earliest due time among the event's holds (or earlier: scripts only
 *                 lower it, ZADD LT; the sweep sets it right when it visits). The sweep of a shard reads
 *                 only its head, then each due event's own due head. Two levels keep the bytes per held
 *                 seat low: hold entries stay 11-char hids inside the event's keys, without the event id.
 *   gc      ZSET  eventId -> the earliest time an ended hold of the event may be forgotten (same rule)
 *   events  ZSET  eventId -> retain-until (event start + HOLD_EVENT_RETENTION_SECONDS): past it, an event
 *                 with no live hold (empty due) and no ended hold kept (empty gc) loses all its keys, by
 *                 the shard's sweep
 *   outbox  STREAM one record per seat change of the shard's events (SeatExpired, the seat.status
 *                 changes, BookingCancelled), appended by the script that made the change; relayed by the
 *                 shard's one owner, so one event's records reach Kafka in order
 *   outbox:malformed STREAM records the relay could not turn into a message
 *   ended   ZSET  eventId -> when the sweep deleted the event's keys: a tombstone, so that no later write
 *                 re-creates them (lua/event-retention.lua); kept 30 days (EVENT_TOMBSTONE_KEEP_MS)
 *
 * Locks: seat locks `seat:{s<k>}:<eventId>:<seatId>` (holds/seat-lock.ts) draw fencing tokens from the
 * shard's counter `lock:fence:{s<k>}` (DistributedLockService.fenceKey('{s<k>}')), which every hold script
 * gets as its key `fence` (lua/manifest.ts EVENT_KEYS): it compares a token with it atomically
 * (lua/seats.lua, fence_ok()). The store never INCRs it; it only raises it to a seat's fence after Redis
 * lost the counter. Tokens thus increase per
 * shard (shared by its events), which is all fencing needs.
 *
 * Deployment-wide (one key each, no tag):
 *   hold:instances    ZSET instance -> Redis time of its last heartbeat (live instances)
 *   hold:shard-leases HASH shard -> "<instance>|<until ms>": which instance sweeps and relays each shard
 *                     (shards/shard-leases.lua)
 *   hold:queues       SET  the events with an on-sale queue, stepped by every instance (queue/)
 *   hold:wake         ZSET shard -> when the shard next has work (its earliest due hold, forget time or
 *                     event removal; or sooner): the sweeper reads this one key per tick instead of every
 *                     shard's indexes, and a change that makes a shard's work come sooner lowers it
 *                     (ZADD LT, HoldStore.wakeFor; expiry/shard-wake.ts)
 *
 * CHANGING HOLD_SHARDS on a running deployment moves most events to another shard: their keys (holds,
 * seats, bookings marked in Redis) would no longer be found. Drain first (stop taking holds until none
 * is live and every outbox is empty), or migrate the keys; no migration tool exists (docs/operations.md).
 * An event's repair at its first load (CatalogueService) restores its BOOKED seats from PostgreSQL either
 * way.
 */
export interface EventKeys {
  seats: string;
  holds: string;
  due: string;
  users: string;
  gc: string;
  meta: string;
  changes: string;
}

export interface ShardKeys {
  due: string;
  gc: string;
  events: string;
  outbox: string;
  ended: string;
}

/** Registry of live instances (membership heartbeats for the fair share of shards): one key, no tag. */
export const INSTANCES_KEY = 'hold:instances';

/** The shard leases of the deployment (shards/shard-leases.lua): one hash, no tag. */
export const SHARD_LEASES_KEY = 'hold:shard-leases';

/** When each shard next has work (see the layout above): one sorted set, no tag. */
export const WAKE_KEY = 'hold:wake';

/** The events that have an on-sale queue, which every instance steps (queue/): one set, no tag. */
export const QUEUES_KEY = 'hold:queues';

/** FNV-1a 32-bit of the text's UTF-16 code units (event ids are ASCII): stable across processes. */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The per-event key suffixes (each also the name of that key in lua/manifest.ts EVENT_KEYS). */
export const EVENT_KEY_SUFFIXES = ['seats', 'holds', 'due', 'users', 'gc', 'meta', 'changes'] as const;

export class HoldLayout {
  constructor(readonly shards: number) {
    if (!Number.isInteger(shards) || shards < 1) {
      throw new RangeError(`HOLD_SHARDS must be a positive integer, got ${shards}`);
    }
  }

  shardOf(eventId: string): number {
    return fnv1a32(eventId.toLowerCase()) % this.shards;
  }

  /** The shard's hash tag with its braces, e.g. `{s12}`. */
  tagOf(shard: number): string {
    return `{s${shard}}`;
  }

  eventKeys(eventId: string): EventKeys {
    const base = `hold:${this.tagOf(this.shardOf(eventId))}:${eventId}:`;
    return {
      seats: `${base}seats`,
      holds: `${base}holds`,
      due: `${base}due`,
      users: `${base}users`,
      gc: `${base}gc`,
      meta: `${base}meta`,
      changes: `${base}changes`,
    };
  }

  /** The event's general-admission areas (lua/places.lua): beside its meta, same tag. */
  areasKey(eventId: string): string {
    return `hold:${this.tagOf(this.shardOf(eventId))}:${eventId}:areas`;
  }

  /** The event's staff-action ledger (see the layout above): the tag of its shard, so the slot of its keys. */
  staffLedgerKey(eventId: string): string {
    return `hold:${this.tagOf(this.shardOf(eventId))}:${eventId}:staff`;
  }

  shardKeys(shard: number): ShardKeys {
    const base = `hold:${this.tagOf(shard)}:`;
    return {
      due: `${base}due`,
      gc: `${base}gc`,
      events: `${base}events`,
      outbox: `${base}outbox`,
      ended: `${base}ended`,
    };
  }

  /** The keys of an event's hold buckets 0 .. count - 1 (count = 2^hl + hp of its meta), holds then due. */
  holdBucketKeys(eventId: string, count: number): string[] {
    const e = this.eventKeys(eventId);
    const keys: string[] = [];
    for (let b = 0; b < count; b++) {
      keys.push(`${e.holds}:${b}`, `${e.due}:${b}`);
    }
    return keys;
  }

  /** Seat lock keys of an event: the shard's tag, so they share the slot and the fence counter of its keys. */
  seatLockKeys(eventId: string, seatIds: readonly string[]): string[] {
    const prefix = `seat:${this.tagOf(this.shardOf(eventId))}:${eventId}:`;
    return seatIds.map((s) => prefix + s);
  }

  all(): number[] {
    return Array.from({ length: this.shards }, (_, k) => k);
  }
}
