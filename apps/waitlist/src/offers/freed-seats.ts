import {
  ADMISSION_EXPIRED_TYPE,
  QUEUE_CLOSED_TYPE,
  QUEUE_OPENED_TYPE,
  QUEUE_PAUSED_TYPE,
  QUEUE_RESUMED_TYPE,
  QUEUE_UPDATED_TYPE,
  SHOPPER_ADMITTED_TYPE,
  SHOPPER_FINISHED_TYPE,
  BOOKING_CANCELLED_TYPE,
  HOLD_CONFIRMED_TYPE,
  HOLD_CREATED_TYPE,
  HOLD_EXTENDED_TYPE,
  HOLD_RELEASED_TYPE,
  SEAT_EXPIRED_TYPE,
  SEATS_BLOCKED_TYPE,
  SEATS_UNBLOCKED_TYPE,
  STAFF_ACTION_RECORDED_TYPE,
  WAITLIST_OFFER_MADE_TYPE,
  type PlacesData,
  type SeatStatusCloudEvent,
} from '@app/contracts';

/**
 * Seats and places of general-admission areas a seat.status change made available again: what an offer
 * can be made from.
 */
export interface FreedSeats {
  /** The change's CloudEvent id: the same for every copy of it, so it names the claim of its offers. */
  sourceEventId: string;
  eventId: string;
  seatIds: string[];
  /** How many places of each area went back to it; absent when none did. */
  places?: PlacesData[];
  /** The hold that let them go (if it was an offer, the offer lapsed); none for seats staff unblocked. */
  holdId?: string;
}

/** `places` when it names any. */
const placesOf = (places: PlacesData[] | undefined) => (places && places.length > 0 ? { places } : {});

/** What a seat.status event means to the waiting list. */
export type WaitlistChange =
  { kind: 'freed'; freed: FreedSeats } | { kind: 'booked'; holdId: string } | { kind: 'none' };

/**
 * Freed: a hold released (by its user, staff, a cancellation), a seat expired (one message per seat, or
 * per area and hold for places: seatId the area's name, with `area` and `quantity`), a booking cancelled,
 * seats staff unblocked. Booked: a hold confirmed (an offer accepted). The rest (holds
 * made or extended, seats blocked, offers announced, staff actions told, the on-sale queue's events)
 * changes nothing for the waiting list.
 */
export function waitlistChange(ce: SeatStatusCloudEvent): WaitlistChange {
  switch (ce.type) {
    case HOLD_RELEASED_TYPE:
    case BOOKING_CANCELLED_TYPE:
      return {
        kind: 'freed',
        freed: {
          sourceEventId: ce.id,
          eventId: ce.data.eventId,
          seatIds: ce.data.seatIds,
          ...placesOf(ce.data.places),
          holdId: ce.data.holdId,
        },
      };
    case SEAT_EXPIRED_TYPE: {
      const { area, quantity } = ce.data;
      return {
        kind: 'freed',
        freed: {
          sourceEventId: ce.id,
          eventId: ce.data.eventId,
          ...(area !== undefined && quantity !== undefined
            ? { seatIds: [], places: [{ area, quantity }] }
            : { seatIds: [ce.data.seatId] }),
          holdId: ce.data.holdId,
        },
      };
    }
    case SEATS_UNBLOCKED_TYPE:
      return {
        kind: 'freed',
        freed: { sourceEventId: ce.id, eventId: ce.data.eventId, seatIds: ce.data.seatIds },
      };
    case HOLD_CONFIRMED_TYPE:
      return { kind: 'booked', holdId: ce.data.holdId };
    case HOLD_CREATED_TYPE:
    case HOLD_EXTENDED_TYPE:
    case SEATS_BLOCKED_TYPE:
    case WAITLIST_OFFER_MADE_TYPE:
    case STAFF_ACTION_RECORDED_TYPE:
    case QUEUE_OPENED_TYPE:
    case QUEUE_PAUSED_TYPE:
    case QUEUE_RESUMED_TYPE:
    case QUEUE_UPDATED_TYPE:
    case QUEUE_CLOSED_TYPE:
    case SHOPPER_ADMITTED_TYPE:
    case ADMISSION_EXPIRED_TYPE:
    case SHOPPER_FINISHED_TYPE:
      return { kind: 'none' };
  }
}
