import { randomBytes } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HOLD_ID = /^([0-9a-f]{32})([A-Za-z0-9_-]{11})$/;

/**
 * Public hold ids carry their event: `<event uuid without dashes><11 random base64url chars>`.
 * So `GET /v1/holds/{holdId}` finds the event's keys without a global index (one less Redis write per
 * hold), while the 64 random bits keep ids unguessable. Inside an event a hold is known by the short
 * random part alone (`hid`), which keeps the per-seat and per-hold Redis entries small.
 */
/** Random bytes drawn 4 KiB at a time: one OpenSSL call per 512 holds instead of one per hold. */
let pool = Buffer.alloc(0);
let used = 0;
function random8(): Buffer {
  if (used + 8 > pool.length) {
    pool = randomBytes(4096);
    used = 0;
  }
  used += 8;
  return pool.subarray(used - 8, used);
}

export const HoldIds = {
  generate(eventId: string): string {
    return compact(eventId) + random8().toString('base64url');
  },

  /** The event and the in-event id, or null for anything that is not a well-formed hold id. */
  parse(holdId: string): { eventId: string; hid: string } | null {
    const m = HOLD_ID.exec(holdId);
    if (!m) {
      return null;
    }
    const h = m[1];
    const eventId = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    return { eventId, hid: m[2] };
  },

  /** The part the Lua scripts prepend to a `hid` to rebuild the public id. */
  prefixOf(eventId: string): string {
    return compact(eventId);
  },
};

function compact(eventId: string): string {
  const id = eventId.toLowerCase();
  if (!UUID.test(id)) {
    throw new Error(`event id must be a UUID, got ${JSON.stringify(eventId)}`);
  }
  return id.replace(/-/g, '');
}
