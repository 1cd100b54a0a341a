/**
 * The seat-status contract: every change of a seat's state, as one CloudEvents 1.0 event in structured JSON
 * mode on the topic `seat.status` (KAFKA_TOPIC_SEAT_STATUS), keyed by the show (the event id), so one show's
 * changes are read in the order they happened. Hold-level changes are one event per hold (data carries its
 * seatIds); an expiry is one SeatExpired per freed seat, the same message as on `seat.expired`.
 *
 * Ids name the change, not the record that carried it: whatever publishes a change twice (the relay after a
 * crash between Kafka's ack and Redis's; the sweeper expiring a hold again after Redis lost its last writes)
 * gives it the same id, so a consumer drops copies by id alone. Hold ids are unique across shows.
 */
import {
  BOOKING_CANCELLED_TYPE,
  BookingCancelledCloudEvent,
} from '../booking-cancelled/booking-cancelled.event';
import { SEAT_EXPIRED_TYPE, SeatExpiredCloudEvent, seatExpiredId } from '../seat-expired/seat-expired.event';
import { CloudEvent, cloudEvent, cloudEventKafkaMessage } from '../cloud-event';
import { QUEUE_TYPES, QueueCloudEvent } from './queue.event';

/** Default topic; deployments rename it with the environment variable SEAT_STATUS_TOPIC_ENV names. */
export const SEAT_STATUS_TOPIC = 'seat.status';
export const SEAT_STATUS_TOPIC_ENV = 'KAFKA_TOPIC_SEAT_STATUS';

/** CloudEvents `type`s of the seat-status topic (BookingCancelled and SeatExpired are their own contracts). */
export const HOLD_CREATED_TYPE = 'HoldCreated';
export const HOLD_EXTENDED_TYPE = 'HoldExtended';
export const HOLD_RELEASED_TYPE = 'HoldReleased';
export const HOLD_CONFIRMED_TYPE = 'HoldConfirmed';
export const WAITLIST_OFFER_MADE_TYPE = 'WaitlistOfferMade';
/** Staff took seats off sale (a blocked seat reads booked to the public) and put them back. */
export const SEATS_BLOCKED_TYPE = 'SeatsBlocked';
export const SEATS_UNBLOCKED_TYPE = 'SeatsUnblocked';
/** One audited staff action made its change: who did what to which target, and why (its audit entry). */
export const STAFF_ACTION_RECORDED_TYPE = 'StaffActionRecorded';

/** Every type a reader of `seat.status` may meet; a reader skips a type it does not handle. */
export const SEAT_STATUS_TYPES = [
  HOLD_CREATED_TYPE,
  HOLD_EXTENDED_TYPE,
  HOLD_RELEASED_TYPE,
  HOLD_CONFIRMED_TYPE,
  SEAT_EXPIRED_TYPE,
  BOOKING_CANCELLED_TYPE,
  WAITLIST_OFFER_MADE_TYPE,
  SEATS_BLOCKED_TYPE,
  SEATS_UNBLOCKED_TYPE,
  STAFF_ACTION_RECORDED_TYPE,
  ...QUEUE_TYPES,
] as const;
export type SeatStatusType = (typeof SEAT_STATUS_TYPES)[number];

/** Why a hold's seats were freed before it ran out or was booked. */
export const HOLD_RELEASE_REASONS = {
  /** The customer released it. */
  RELEASED: 'RELEASED',
  /** Staff released it (an audited action). */
  FORCE_RELEASED: 'FORCE_RELEASED',
  /** Its show's booking was cancelled or the show's sales were closed with the hold live. */
  CANCELLED: 'CANCELLED',
} as const;
export type HoldReleaseReason = (typeof HOLD_RELEASE_REASONS)[keyof typeof HOLD_RELEASE_REASONS];

/** What every hold-level change carries. */
export interface HoldChangeData {
  eventId: string;
  holdId: string;
  /** The customer whose hold it is. */
  userId: string;
  /** The seats the change concerns, in the hold's order. */
  seatIds: string[];
  /**
   * The places of general-admission areas the hold has, by area; absent when it has none (a consumer that
   * does not know areas reads the seats as before).
   */
  places?: PlacesData[];
}

/** Places of one general-admission area. */
export interface PlacesData {
  area: string;
  quantity: number;
}

export interface HoldCreatedData extends HoldChangeData {
  /** When the hold runs out unless extended (ISO 8601). */
  expireAt: string;
}

export interface HoldExtendedData extends HoldChangeData {
  /** The new end (ISO 8601). */
  expireAt: string;
  /** Which extension of this hold it is: 1 for the first. */
  extension: number;
}

export interface HoldReleasedData extends HoldChangeData {
  reason: HoldReleaseReason;
}

/** One priced line of a booking (amounts in minor units of its currency). */
export interface PricedLineData {
  seatId: string;
  category: string;
  ticketType: string;
  /** The ticket type's price in the price-list version the hold was made under. */
  unitPrice: number;
  /** What the promo code took off this line; never above unitPrice. */
  discount: number;
}

/**
 * What a booking was sold for: present on a hold made while its show had a price list, left out on one
 * made without (added after the first consumers: every field is optional, so they read on unchanged).
 */
export interface BookingPriceData {
  /** ISO 4217; every amount is in its minor unit. */
  currency?: string;
  priceListVersion?: number;
  promoCode?: string;
  lines?: PricedLineData[];
  subtotal?: number;
  discountTotal?: number;
  /** subtotal - discountTotal: what the customer pays. */
  total?: number;
}

export interface HoldConfirmedData extends HoldChangeData, BookingPriceData {
  /** The order the seats were booked for. */
  orderId: string;
}

export interface WaitlistOfferMadeData {
  eventId: string;
  /** The waiting-list entry the offer is for. */
  entryId: string;
  userId: string;
  /** The hold made for the entry: the offered seats are held by it until it runs out. */
  holdId: string;
  seatIds: string[];
  /** When the offer lapses (ISO 8601). */
  offerExpiresAt: string;
}

/** Seats blocked or unblocked by one audited staff action. */
export interface SeatsBlockData {
  eventId: string;
  seatIds: string[];
  /** The staff action (its audit entry's id). */
  actionId: string;
}

/** The staff actions the audit records, by the names its entries carry. */
export const STAFF_ACTIONS = [
  'HOLD_FORCE_RELEASE',
  'HOLD_ON_BEHALF',
  'BOOKING_CANCEL',
  'SEATS_BLOCK',
  'SEATS_UNBLOCK',
  'PLACES_BLOCK',
  'PLACES_UNBLOCK',
  'QUEUE_CONFIGURE',
  'QUEUE_PAUSE',
  'QUEUE_RESUME',
  'QUEUE_PACE',
  'QUEUE_ADMIT',
  'QUEUE_CLOSE',
] as const;
export type StaffActionName = (typeof STAFF_ACTIONS)[number];

/** A staff action as its audit entry (GET /v1/events/{eventId}/audit) records it, once its change is made. */
export interface StaffActionRecordedData {
  eventId: string;
  /** The audit entry's id. */
  actionId: string;
  /** The staff member's user id. */
  actor: string;
  action: StaffActionName;
  /** What it acted on: a hold id, a booking id, or the seat ids joined by ','. */
  target: string;
  /** The reason staff gave; null when the action takes none. */
  reason: string | null;
  /** When the change was made (ISO 8601). */
  at: string;
}

/**
 * id names the change (the id functions below); subject the hold (the offer's entry for
 * WaitlistOfferMade, the staff action for SeatsBlocked/SeatsUnblocked/StaffActionRecorded); time when the change was made.
 */
type StatusEvent<T extends string, D extends { eventId: string }> = CloudEvent<T, D>;

export type HoldCreatedCloudEvent = StatusEvent<typeof HOLD_CREATED_TYPE, HoldCreatedData>;
export type HoldExtendedCloudEvent = StatusEvent<typeof HOLD_EXTENDED_TYPE, HoldExtendedData>;
export type HoldReleasedCloudEvent = StatusEvent<typeof HOLD_RELEASED_TYPE, HoldReleasedData>;
export type HoldConfirmedCloudEvent = StatusEvent<typeof HOLD_CONFIRMED_TYPE, HoldConfirmedData>;
export type WaitlistOfferMadeCloudEvent = StatusEvent<typeof WAITLIST_OFFER_MADE_TYPE, WaitlistOfferMadeData>;
export type SeatsBlockedCloudEvent = StatusEvent<typeof SEATS_BLOCKED_TYPE, SeatsBlockData>;
export type SeatsUnblockedCloudEvent = StatusEvent<typeof SEATS_UNBLOCKED_TYPE, SeatsBlockData>;
export type StaffActionRecordedCloudEvent = StatusEvent<
  typeof STAFF_ACTION_RECORDED_TYPE,
  StaffActionRecordedData
>;

/** Any message of the seat-status topic. */
export type SeatStatusCloudEvent =
  | HoldCreatedCloudEvent
  | HoldExtendedCloudEvent
  | HoldReleasedCloudEvent
  | HoldConfirmedCloudEvent
  | SeatExpiredCloudEvent
  | BookingCancelledCloudEvent
  | WaitlistOfferMadeCloudEvent
  | SeatsBlockedCloudEvent
  | SeatsUnblockedCloudEvent
  | StaffActionRecordedCloudEvent
  | QueueCloudEvent;

/**
 * Id rules. A hold is created, released and confirmed at most once, so its id and the change name each;
 * its extensions are counted, so the n-th extension is one change. SeatExpired keeps `<holdId>:<seatId>`
 * (seatExpiredId) and BookingCancelled the booking id. An offer is named by its entry and its hold.
 */
export const holdCreatedId = (holdId: string): string => `${holdId}:created`;
export const holdExtendedId = (holdId: string, extension: number): string =>
  `${holdId}:extended:${extension}`;
export const holdReleasedId = (holdId: string): string => `${holdId}:released`;
export const holdConfirmedId = (holdId: string): string => `${holdId}:confirmed`;
export const waitlistOfferMadeId = (entryId: string, holdId: string): string => `${entryId}:offer:${holdId}`;
/** A staff action is applied at most once: its id and what it did name the change. */
export const seatsBlockedId = (actionId: string): string => `${actionId}:blocked`;
export const seatsUnblockedId = (actionId: string): string => `${actionId}:unblocked`;
export const staffActionRecordedId = (actionId: string): string => `${actionId}:staff`;
export { seatExpiredId };

export const holdCreatedEvent = (data: HoldCreatedData, at: Date): HoldCreatedCloudEvent =>
  cloudEvent(HOLD_CREATED_TYPE, holdCreatedId(data.holdId), data.holdId, data, at);
export const holdExtendedEvent = (data: HoldExtendedData, at: Date): HoldExtendedCloudEvent =>
  cloudEvent(HOLD_EXTENDED_TYPE, holdExtendedId(data.holdId, data.extension), data.holdId, data, at);
export const holdReleasedEvent = (data: HoldReleasedData, at: Date): HoldReleasedCloudEvent =>
  cloudEvent(HOLD_RELEASED_TYPE, holdReleasedId(data.holdId), data.holdId, data, at);
export const holdConfirmedEvent = (data: HoldConfirmedData, at: Date): HoldConfirmedCloudEvent =>
  cloudEvent(HOLD_CONFIRMED_TYPE, holdConfirmedId(data.holdId), data.holdId, data, at);
export const waitlistOfferMadeEvent = (data: WaitlistOfferMadeData, at: Date): WaitlistOfferMadeCloudEvent =>
  cloudEvent(
    WAITLIST_OFFER_MADE_TYPE,
    waitlistOfferMadeId(data.entryId, data.holdId),
    data.entryId,
    data,
    at,
  );

export const seatsBlockedEvent = (data: SeatsBlockData, at: Date): SeatsBlockedCloudEvent =>
  cloudEvent(SEATS_BLOCKED_TYPE, seatsBlockedId(data.actionId), data.actionId, data, at);
export const seatsUnblockedEvent = (data: SeatsBlockData, at: Date): SeatsUnblockedCloudEvent =>
  cloudEvent(SEATS_UNBLOCKED_TYPE, seatsUnblockedId(data.actionId), data.actionId, data, at);

export const staffActionRecordedEvent = (
  data: StaffActionRecordedData,
  at: Date,
): StaffActionRecordedCloudEvent =>
  cloudEvent(STAFF_ACTION_RECORDED_TYPE, staffActionRecordedId(data.actionId), data.actionId, data, at);

/** The Kafka record of any seat-status event (cloud-event.ts: keyed by the show, as seat.expired's). */
export const seatStatusKafkaMessage = (ce: SeatStatusCloudEvent) => cloudEventKafkaMessage(ce);
