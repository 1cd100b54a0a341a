import {
  BookingPriceData,
  HOLD_CONFIRMED_TYPE,
  HOLD_CREATED_TYPE,
  HOLD_EXTENDED_TYPE,
  HOLD_RELEASE_REASONS,
  HOLD_RELEASED_TYPE,
  holdConfirmedEvent,
  holdCreatedEvent,
  holdExtendedEvent,
  HoldReleaseReason,
  holdReleasedEvent,
  SEAT_STATUS_RECORD_FIELDS as S,
  SEATS_BLOCKED_TYPE,
  SEATS_UNBLOCKED_TYPE,
  seatsBlockedEvent,
  SeatStatusCloudEvent,
  seatsUnblockedEvent,
  STAFF_ACTION_RECORDED_TYPE,
  STAFF_ACTIONS,
  staffActionRecordedEvent,
  StaffActionName,
  WAITLIST_OFFER_MADE_TYPE,
  waitlistOfferMadeEvent,
  QUEUE_TYPES,
  type PlacesData,
} from '@app/contracts';
import { queueStatusFrom } from './queue-record';

const REASONS: ReadonlySet<string> = new Set(Object.values(HOLD_RELEASE_REASONS));
const STAFF: ReadonlySet<string> = new Set(STAFF_ACTIONS);

/**
 * The CloudEvent of a seat-status record (SEAT_STATUS_RECORD_FIELDS: hold-store/lua/hold-lifecycle.lua
 * status_change and staff_applied, or a waiting list's offer), or null when its type is unknown or a field it needs is
 * missing (a record of another version): such a record could never be published, and is moved aside.
 */
export function seatStatusFrom(byName: Record<string, string>): SeatStatusCloudEvent | null {
  const f = (field: keyof typeof S): string | undefined => byName[S[field]] || undefined;
  const ms = (field: keyof typeof S): Date | null => {
    const n = Number(f(field) ?? NaN);
    return Number.isFinite(n) ? new Date(n) : null;
  };
  const eventId = f('eventId');
  const seats = byName[S.seatIds];
  const at = ms('at');
  const type = byName[S.type];
  if ((QUEUE_TYPES as readonly string[]).includes(type)) {
    return eventId && at ? queueStatusFrom(type, eventId, at, f) : null;
  }
  if (type === STAFF_ACTION_RECORDED_TYPE) {
    const [actionId, actor, action, target] = [f('actionId'), f('actor'), f('action'), f('target')];
    if (!eventId || !at || !actionId || !actor || !action || !STAFF.has(action) || !target) {
      return null;
    }
    const reason = f('reason') ?? null;
    const data = { eventId, actionId, actor, action: action as StaffActionName, target, reason };
    return staffActionRecordedEvent({ ...data, at: at.toISOString() }, at);
  }
  if (!eventId || seats === undefined || !at) {
    return null;
  }
  const seatIds = seats ? seats.split(',') : [];
  if (type === SEATS_BLOCKED_TYPE || type === SEATS_UNBLOCKED_TYPE) {
    const actionId = f('actionId');
    if (!actionId) {
      return null;
    }
    return (type === SEATS_BLOCKED_TYPE ? seatsBlockedEvent : seatsUnblockedEvent)(
      { eventId, seatIds, actionId },
      at,
    );
  }
  const holdId = f('holdId');
  const userId = f('userId');
  if (!holdId || !userId) {
    return null;
  }
  const places = placesOf(f('places'));
  if (places === null) {
    return null;
  }
  const hold = { eventId, holdId, userId, seatIds, ...(places.length > 0 ? { places } : {}) };
  const expireAt = ms('expireAt');
  switch (type) {
    case HOLD_CREATED_TYPE:
      return expireAt && holdCreatedEvent({ ...hold, expireAt: expireAt.toISOString() }, at);
    case HOLD_EXTENDED_TYPE: {
      const extension = Number(f('extension') ?? NaN);
      return expireAt && Number.isInteger(extension) && extension > 0
        ? holdExtendedEvent({ ...hold, expireAt: expireAt.toISOString(), extension }, at)
        : null;
    }
    case HOLD_RELEASED_TYPE: {
      const reason = f('reason');
      return reason && REASONS.has(reason)
        ? holdReleasedEvent({ ...hold, reason: reason as HoldReleaseReason }, at)
        : null;
    }
    case HOLD_CONFIRMED_TYPE: {
      const orderId = f('orderId');
      const price = priceOf(f('price'));
      return orderId && price ? holdConfirmedEvent({ ...hold, orderId, ...price }, at) : null;
    }
    case WAITLIST_OFFER_MADE_TYPE: {
      const entryId = f('entryId');
      const offerExpiresAt = ms('offerExpiresAt');
      return entryId && offerExpiresAt
        ? waitlistOfferMadeEvent(
            {
              eventId,
              entryId,
              userId,
              holdId,
              seatIds: hold.seatIds,
              offerExpiresAt: offerExpiresAt.toISOString(),
            },
            at,
          )
        : null;
    }
    default:
      return null;
  }
}

/**
 * A HoldConfirmed record's price (what its booking was sold for, as JSON: holds/confirm), {} when it has
 * none, or null when it is not JSON of an object (the record cannot be published).
 */
function priceOf(text: string | undefined): BookingPriceData | null {
  if (text === undefined) {
    return {};
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * A hold record's places of general-admission areas ("FLOOR:2,BALCONY:1", hold-lifecycle.lua
 * status_change), [] when it has none, or null when the text is not of that shape.
 */
export function placesOf(text: string | undefined): PlacesData[] | null {
  if (text === undefined) {
    return [];
  }
  const places: PlacesData[] = [];
  for (const part of text.split(',')) {
    const m = /^([^:,]+):([1-9]\d*)$/.exec(part);
    if (!m) {
      return null;
    }
    places.push({ area: m[1], quantity: Number(m[2]) });
  }
  return places;
}
