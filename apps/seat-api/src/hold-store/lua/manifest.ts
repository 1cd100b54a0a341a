import {
  ADMISSION_EXPIRED_TYPE,
  BOOKING_CANCELLED_RECORD_FIELDS,
  BOOKING_CANCELLED_TYPE,
  HOLD_CONFIRMED_TYPE,
  HOLD_CREATED_TYPE,
  HOLD_EXTENDED_TYPE,
  HOLD_RELEASE_REASONS,
  HOLD_RELEASED_TYPE,
  QUEUE_CLOSED_TYPE,
  QUEUE_OPENED_TYPE,
  QUEUE_PAUSED_TYPE,
  QUEUE_RESUMED_TYPE,
  QUEUE_UPDATED_TYPE,
  SEAT_EXPIRED_RECORD_FIELDS,
  SEAT_EXPIRED_TYPE,
  SEAT_STATUS_RECORD_FIELDS,
  SEATS_BLOCKED_TYPE,
  SEATS_UNBLOCKED_TYPE,
  SHOPPER_ADMITTED_TYPE,
  SHOPPER_FINISHED_TYPE,
  STAFF_ACTION_RECORDED_TYPE,
} from '@app/contracts';
import type { LuaScriptSpec } from '@app/redis';

/**
 * The hold store's Lua: every script's file and what each call passes (KEYS, then ARGV, in order), and
 * the values the Lua reads from TypeScript. The files are in this folder; hold-script.ts assembles them.
 */

/** The folder of the hold store's .lua files (in dist too: nest-cli.json copies them beside the code). */
export const HOLD_LUA_DIR = __dirname;

/**
 * KEYS of every event script, first in each call (call-begin.lua reads them): all under the shard's hash
 * tag (hold-keys.ts), so one slot. `fence` is the fencing counter the event's seat locks draw from (the
 * shard's); `shardDue`, `shardGc` are the shard's indexes of events.
 */
export const EVENT_KEYS = [
  'seats',
  'holds',
  'due',
  'users',
  'outbox',
  'gc',
  'fence',
  'meta',
  'changes',
  'shardDue',
  'shardGc',
] as const;

/** ARGV of every event script, first in each call; a script's own arguments follow. */
export const EVENT_ARGV = ['eventId', 'holdIdPrefix', 'retentionMs'] as const;

/**
 * The users hash has one field per bucket of users: this many hex digits of the userId's SHA-1, so 4,096
 * buckets. Past a few thousand users per event each field packs several users (about 25 B each instead of
 * ~74 B for a field of its own); a change reads and rewrites one bucket (users / 4,096 entries).
 * User ids go into the bucket's value between '\n' and '=' (see user_entry): they may contain neither.
 */
export const USER_BUCKET_HEX_DIGITS = 3;

/** Status codes of a hold record (its second field): readers outside the hold scripts compare with these. */
export const HOLD_STATUS_CODES = { ACTIVE: 0, CONFIRMING: 1, CONFIRMED: 2, RELEASED: 3, EXPIRED: 4 } as const;

/**
 * A bucket splits when the event's records exceed this many per bucket (hold-buckets.lua): an unsplit
 * bucket then holds about twice this (it still carries its future sibling's share), below the listpack
 * limit of 128.
 */
export const BUCKET_SPLIT_LOAD = 48;

/** About this many entries are kept per event's seat-map change log (XADD MAXLEN ~): minutes of a flash sale's changes. */
export const CHANGE_LOG_MAX_ENTRIES = 10_000;

/**
 * Most seats one best-available hold asks for (best-available.lua): the free-seat index keeps one set of
 * rows per block size up to this (allocation-index.lua).
 */
export const ALLOCATION_MAX_SEATS = 10;

/**
 * The hold id a blocked seat is 'B' under (block-seats.lua): not one a hold can have (hold ids are 11
 * base64url characters, hold-ids.ts), so every hold script takes the seat as booked by someone else.
 */
export const BLOCKED_HID = '!';

/**
 * The fields of an event's queue that its scripts answer (queue.lua q_figures), in this order: its settings,
 * then its figures (queue.lua says what each is).
 */
export const QUEUE_FIGURES = [
  'opens',
  'starts',
  'order',
  'rate',
  'cap',
  'passMs',
  'idleMs',
  'paused',
  'last',
  'pre',
  'serving',
  'active',
  'admitted',
  'queued',
  'skipped',
] as const;

/** What the hold scripts' Lua reads as constants (declared ahead of the helpers). */
export const HOLD_CONSTANTS = {
  USER_BUCKET_HEX_DIGITS,
  HOLD_STATUS: HOLD_STATUS_CODES,
  HOLD_STATUS_NAMES: Object.fromEntries(
    Object.entries(HOLD_STATUS_CODES).map(([name, code]) => [code, name]),
  ),
  BUCKET_SPLIT_LOAD,
  CHANGE_LOG_MAX_ENTRIES,
  ALLOCATION_MAX_SEATS,
  // seats per change-log entry at most (Lua's unpack has a stack limit): a sweep of more writes several
  CHANGE_LOG_MAX_SEATS_PER_ENTRY: 1000,
  SEAT_EXPIRED_FIELDS: SEAT_EXPIRED_RECORD_FIELDS,
  SEAT_EXPIRED_TYPE,
  BOOKING_CANCELLED_FIELDS: BOOKING_CANCELLED_RECORD_FIELDS,
  BOOKING_CANCELLED_TYPE,
  // a hold's changes for the seat.status topic (hold-lifecycle.lua status_change)
  SEAT_STATUS_FIELDS: SEAT_STATUS_RECORD_FIELDS,
  SEAT_STATUS: {
    CREATED: HOLD_CREATED_TYPE,
    EXTENDED: HOLD_EXTENDED_TYPE,
    RELEASED: HOLD_RELEASED_TYPE,
    CONFIRMED: HOLD_CONFIRMED_TYPE,
    BLOCKED: SEATS_BLOCKED_TYPE,
    UNBLOCKED: SEATS_UNBLOCKED_TYPE,
    STAFF: STAFF_ACTION_RECORDED_TYPE,
  },
  RELEASE_REASON: HOLD_RELEASE_REASONS,
  BLOCKED_HID,
  // the on-sale queue's records (queue.lua) and the figures its scripts answer (queue.store.ts)
  QUEUE_EVENT: {
    OPENED: QUEUE_OPENED_TYPE,
    PAUSED: QUEUE_PAUSED_TYPE,
    RESUMED: QUEUE_RESUMED_TYPE,
    UPDATED: QUEUE_UPDATED_TYPE,
    CLOSED: QUEUE_CLOSED_TYPE,
    ADMITTED: SHOPPER_ADMITTED_TYPE,
    EXPIRED: ADMISSION_EXPIRED_TYPE,
    FINISHED: SHOPPER_FINISHED_TYPE,
  },
  QUEUE_FIGURES,
  // how long a deleted event's tombstone stays (event-retention.lua): far longer than any clock skew or
  // delayed request, short enough that ended events do not add up in Redis for ever
  EVENT_TOMBSTONE_KEEP_MS: 30 * 86_400_000,
} as const;

/**
 * What every hold script runs on, in order (a file uses what the files before it define): the library
 * defines these once, an EVAL of a hold script runs them on every call. The lock library's
 * LOCK_OWNED_LUA_FILE comes first (hold-script.ts).
 */
export const HOLD_HELPERS = [
  'call-state.lua',
  'event-retention.lua',
  'change-tracking.lua',
  'hold-buckets.lua',
  'write-batch.lua',
  'hold-index.lua',
  'hold-records.lua',
  'seats.lua',
  'places.lua',
  'user-index.lua',
  'queue.lua',
  'hold-lifecycle.lua',
  'hold-growth.lua',
  'allocation-index.lua',
  'change-log.lua',
  'call-begin.lua',
] as const;

/**
 * One script on one event's keys: its own KEYS and ARGV, after the event's (EVENT_KEYS, EVENT_ARGV), which
 * HoldScripts fills in. `keys` here are keys of the same slot the script reads besides the event's.
 */
const event = <const A extends readonly string[], const K extends readonly string[] = readonly []>(
  file: string,
  argv: A,
  keys: K = [] as unknown as K,
) => ({ file, argv, keys });

/**
 * A new hold's admission to the event's on-sale queue (queue.lua q_gate): the entry and pass it comes with
 * ('' for none), or '1' in queueBypass for holds that need none (staff, waiting-list offers).
 */
const QUEUE_TICKET = ['queueEntry', 'queuePass', 'queueBypass'] as const;

/**
 * The terms a new hold is made under (HoldTerms): the event's policy version and limits, kept in its record,
 * and what it is priced by ('' for a hold of a show without a price list).
 */
const HOLD_TERMS = [
  'ttlMs',
  'maxLifetimeMs',
  'maxSeatsPerUser',
  'policyVersion',
  'maxExtensions',
  'maxTtlMs',
  'pricing',
] as const;

/**
 * An audited staff action a script applies (StaffAction): its id and what its audit entry records, and how
 * long the event's staff ledger keeps its mark (hold-lifecycle.lua staff_applied reads these names).
 */
const STAFF_ACTION = ['actionId', 'ledgerTtlMs', 'actor', 'auditAction', 'target', 'reason'] as const;

/** The scripts the store runs on one event's keys: functions of the hold library. */
export const EVENT_SCRIPTS = {
  holdCreate: event(
    'create-hold.lua',
    [
      'hid',
      'userId',
      ...HOLD_TERMS,
      ...QUEUE_TICKET,
      'fencingToken',
      'lockOwner',
      'letGoOfLock',
      ...STAFF_ACTION,
      // places of general-admission areas, "AREA:quantity,..." ('' for none): lua/places.lua
      'places',
      'seatIds...',
    ],
    ['staffLedger', 'seatLockKeys...'],
  ),
  // best available (holds/allocation): picks and holds in one step; the index it reads, built once per event
  holdBestAvailable: event(
    'best-available.lua',
    [
      'hid',
      'userId',
      ...HOLD_TERMS,
      ...QUEUE_TICKET,
      'quantity',
      'section',
      'category',
      'accessible',
      'accessibleWhenOthersGone',
    ],
    ['seatLockPrefix'],
  ),
  // each row: rowKey, seats, rank, section, category, access (AllocationStore.buildIndex)
  allocationBuild: event('allocation-build.lua', ['orphanRule', 'complete', 'rows...']),
  // the lock-free read of which seats are taken (a busy seat lock, a flash sale's precheck): writes nothing
  seatConflicts: event('seat-conflicts.lua', ['seatIds...']),
  holdRead: event('read-hold.lua', ['hid']),
  holdExtend: event('extend-hold.lua', [
    'hid',
    'userId',
    'ttlMs',
    'maxExtensions',
    'fencingToken',
    'requestKey',
  ]),
  holdRelease: event('release-hold.lua', ['hid', 'userId', 'fencingToken']),
  holdBeginConfirm: event('begin-confirm.lua', [
    'hid',
    'userId',
    'orderId',
    'fencingToken',
    'confirmTimeoutMs',
  ]),
  // `price`: what the booking was sold for, as JSON, told with its HoldConfirmed ('' for an unpriced hold)
  holdFinishConfirm: event('finish-confirm.lua', ['hid', 'orderId', 'price']),
  // a hold's ticket types and promo code (the record alone: no seat lock)
  holdSetPricing: event('set-hold-pricing.lua', ['hid', 'userId', 'expected', 'pricing']),
  holdAbandonConfirm: event('abandon-confirm.lua', ['hid', 'fencingToken']),
  holdMarkBooked: event('mark-booked.lua', ['seatIds...']),
  // each area: name, capacity, places booked and blocked in PostgreSQL (EventRepair)
  areasRepair: event('areas-repair.lua', ['areas...']),
  seatsMarkBlocked: event('mark-blocked.lua', ['seatIds...']),
  eventPolicyVersion: event('policy-version.lua', ['mode', 'version', 'orphanRule', 'afterRepair']),
  eventLiveHolds: event('live-holds.lua', ['fromBucket', 'maxEntries']),
  // staff actions (holds/admin): reads of any hold, and changes applied at most once per audited action
  holdList: event('list-holds.lua', ['fromBucket', 'afterHid', 'limit', 'userId', 'status', 'maxBuckets']),
  holdForceRelease: event('force-release.lua', ['hid', 'fencingToken', ...STAFF_ACTION], ['staffLedger']),
  staffActionSettle: event('settle-staff-action.lua', ['actionId', 'ledgerTtlMs'], ['staffLedger']),
  seatsBlock: event('block-seats.lua', ['fencingToken', ...STAFF_ACTION, 'seatIds...'], ['staffLedger']),
  seatsUnblock: event('unblock-seats.lua', ['fencingToken', ...STAFF_ACTION, 'seatIds...'], ['staffLedger']),
  // places of a general-admission area off sale or back on (mode 'block' | 'unblock')
  placesBlock: event('block-places.lua', ['mode', 'area', 'quantity', ...STAFF_ACTION], ['staffLedger']),
  bookingCancel: event(
    'cancel-booking.lua',
    ['hid', 'fencingToken', ...STAFF_ACTION, 'bookingId', 'orderId', 'userId', 'places', 'seatIds...'],
    ['staffLedger'],
  ),
  // the on-sale queue (queue/, queue.lua): staff set it up and steer it as audited actions; shoppers join,
  // are seen, get their pass, leave; every instance steps it a few times a second
  queueConfigure: event(
    'queue-configure.lua',
    [
      'opensAt',
      'salesStartAt',
      'order',
      'admitPerMinute',
      'maxActiveShoppers',
      'passTtlMs',
      'idleEntryTtlMs',
      ...STAFF_ACTION,
    ],
    ['staffLedger'],
  ),
  queueControl: event(
    'queue-control.lua',
    ['mode', 'admitPerMinute', 'maxActiveShoppers', 'count', ...STAFF_ACTION],
    ['staffLedger'],
  ),
  queueJoin: event('queue-join.lua', ['entry', 'userId', 'random']),
  queueEntry: event('queue-entry.lua', ['entry', 'userId']),
  queuePass: event('queue-pass.lua', ['entry', 'pass', 'passExpiresAt']),
  queueLeave: event('queue-leave.lua', ['entry', 'userId']),
  queueTick: event('queue-tick.lua', ['maxScan']),
  /**
   * The shard sweep: the event's KEYS carry the shard's due key as a placeholder (use_event() points them
   * at each event it visits), and `eventId` / `holdIdPrefix` are ''.
   */
  holdSweepShard: event(
    'sweep-shard.lua',
    ['batchSize', 'stuckRecheckMs', 'maxRemovedEvents', 'eventRecheckMs'],
    ['shardEvents'],
  ),
} as const;

/** The whole KEYS and ARGV of an event script: the event's, then its own. */
export function eventScriptSpec(own: { file: string; keys: readonly string[]; argv: readonly string[] }) {
  return { file: own.file, keys: [...EVENT_KEYS, ...own.keys], argv: [...EVENT_ARGV, ...own.argv] };
}

/** Hold-bucket readers outside the library (EVALSHA): they share its bucket rule and status codes. */
const BUCKET_READER = { uses: ['hold-buckets.lua'], constants: { HOLD_STATUS: HOLD_STATUS_CODES } };

/** What seat-map readers run (seat-change-log.ts), on one event's keys. */
export const SEAT_MAP_SCRIPTS = {
  seatMapChanges: { file: 'seat-map-changes.lua', keys: ['meta', 'changes'], argv: ['fromVersion', 'max'] },
  seatMapHoldStatuses: {
    file: 'seat-map-hold-statuses.lua',
    keys: ['meta', 'holds'],
    argv: ['hids...'],
    ...BUCKET_READER,
  },
  seatMapSetCounts: { file: 'seat-map-set-counts.lua', keys: ['meta'], argv: ['version', 'held', 'booked'] },
} as const satisfies Record<string, LuaScriptSpec>;
