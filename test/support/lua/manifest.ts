import { LOCK_OWNED_LUA_FILE } from '@app/distributed-lock';

/** The folder of the tests' own .lua files. */
export const TEST_LUA_DIR = __dirname;

/**
 * Scripts tests run on the hold library's helpers (evalOnEvent in ../hold-store.ts), with what each call
 * passes besides the event's keys and arguments: read-outs the service itself never needs.
 */
export const TEST_HOLD_SCRIPTS = {
  seatStates: { file: 'seat-states.lua', keys: [], argv: [] },
  holdRecordRoundTrip: { file: 'hold-record-round-trip.lua', keys: [], argv: ['hid', 'fieldsJson'] },
} as const;

/** A store's owner-checked write of a locked section (the lock library's tests and bench). */
export const OWNED_SET = {
  file: 'owned-set.lua',
  keys: ['data', 'lockKeys...'],
  argv: ['owner', 'value', 'letGo'],
  uses: [LOCK_OWNED_LUA_FILE],
} as const;

/** A store that accepts a write only with a fencing token at least as high as the last it saw. */
export const FENCED_WRITE = { file: 'fenced-write.lua', keys: ['store'], argv: ['token', 'value'] } as const;

/** Sets any number of keys to one value (a script whose key count is passed per call). */
export const SET_ALL = { file: 'set-all.lua', keys: ['keys...'], argv: ['value'] } as const;

/** Sets two keys (a script with a fixed key count). */
export const SET_PAIR = {
  file: 'set-pair.lua',
  keys: ['first', 'second'],
  argv: ['first', 'second'],
} as const;
