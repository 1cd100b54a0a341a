/**
 * The on-sale queue's events on `seat.status`: how staff set and steer it, and each shopper's turn from
 * admission to its end. Written in the Lua step that makes the change (the same step as the hold, release,
 * confirm or expiry that ends a turn), so a reader that adds one for each ShopperAdmitted and takes one
 * away for each AdmissionExpired and ShopperFinished knows how many shoppers the show serves at any moment;
 * each also carries that count as `activeShoppers`.
 */
import { CloudEvent, cloudEvent } from '../cloud-event';

export const QUEUE_OPENED_TYPE = 'QueueOpened';
export const QUEUE_PAUSED_TYPE = 'QueuePaused';
export const QUEUE_RESUMED_TYPE = 'QueueResumed';
export const QUEUE_UPDATED_TYPE = 'QueueUpdated';
export const QUEUE_CLOSED_TYPE = 'QueueClosed';
export const SHOPPER_ADMITTED_TYPE = 'ShopperAdmitted';
export const ADMISSION_EXPIRED_TYPE = 'AdmissionExpired';
export const SHOPPER_FINISHED_TYPE = 'ShopperFinished';

export const QUEUE_TYPES = [
  QUEUE_OPENED_TYPE,
  QUEUE_PAUSED_TYPE,
  QUEUE_RESUMED_TYPE,
  QUEUE_UPDATED_TYPE,
  QUEUE_CLOSED_TYPE,
  SHOPPER_ADMITTED_TYPE,
  ADMISSION_EXPIRED_TYPE,
  SHOPPER_FINISHED_TYPE,
] as const;

/** How places are given out before the sales start: shuffled at the start, or in the order joined. */
export const QUEUE_ORDERS = ['shuffle-then-fifo', 'fifo'] as const;
export type QueueOrder = (typeof QUEUE_ORDERS)[number];

/** Why a shopper's turn ended while they were active (their last hold's end, or they left). */
export const SHOPPER_FINISH_REASONS = ['CONFIRMED', 'RELEASED', 'EXPIRED', 'LEFT'] as const;
export type ShopperFinishReason = (typeof SHOPPER_FINISH_REASONS)[number];

/** A staff change of the queue: the audited action that made it (its StaffActionRecorded too). */
export interface QueueChangeData {
  eventId: string;
  actionId: string;
}

export interface QueueOpenedData extends QueueChangeData {
  /** When joining opens and when admission starts (ISO 8601). */
  opensAt: string;
  salesStartAt: string;
  order: QueueOrder;
  admitPerMinute: number;
  maxActiveShoppers: number;
}

export interface QueueUpdatedData extends QueueChangeData {
  admitPerMinute: number;
  maxActiveShoppers: number;
  /** Shoppers staff let in at once beside the pace (0 for a change of pace or cap). */
  letIn: number;
}

/** One shopper's turn: their queue entry, its number, and the active shoppers after the change. */
export interface ShopperTurnData {
  eventId: string;
  entryId: string;
  userId: string;
  number: number;
  activeShoppers: number;
}

export interface ShopperAdmittedData extends ShopperTurnData {
  /** When the admission pass runs out if no hold is made with it (ISO 8601). */
  passExpiresAt: string;
}

export interface ShopperFinishedData extends ShopperTurnData {
  reason: ShopperFinishReason;
}

export type QueueOpenedCloudEvent = CloudEvent<typeof QUEUE_OPENED_TYPE, QueueOpenedData>;
export type QueuePausedCloudEvent = CloudEvent<typeof QUEUE_PAUSED_TYPE, QueueChangeData>;
export type QueueResumedCloudEvent = CloudEvent<typeof QUEUE_RESUMED_TYPE, QueueChangeData>;
export type QueueUpdatedCloudEvent = CloudEvent<typeof QUEUE_UPDATED_TYPE, QueueUpdatedData>;
export type QueueClosedCloudEvent = CloudEvent<typeof QUEUE_CLOSED_TYPE, QueueChangeData>;
export type ShopperAdmittedCloudEvent = CloudEvent<typeof SHOPPER_ADMITTED_TYPE, ShopperAdmittedData>;
export type AdmissionExpiredCloudEvent = CloudEvent<typeof ADMISSION_EXPIRED_TYPE, ShopperTurnData>;
export type ShopperFinishedCloudEvent = CloudEvent<typeof SHOPPER_FINISHED_TYPE, ShopperFinishedData>;

export type QueueCloudEvent =
  | QueueOpenedCloudEvent
  | QueuePausedCloudEvent
  | QueueResumedCloudEvent
  | QueueUpdatedCloudEvent
  | QueueClosedCloudEvent
  | ShopperAdmittedCloudEvent
  | AdmissionExpiredCloudEvent
  | ShopperFinishedCloudEvent;

type QueueChangeType =
  | typeof QUEUE_OPENED_TYPE
  | typeof QUEUE_PAUSED_TYPE
  | typeof QUEUE_RESUMED_TYPE
  | typeof QUEUE_UPDATED_TYPE
  | typeof QUEUE_CLOSED_TYPE;
type TurnType = typeof SHOPPER_ADMITTED_TYPE | typeof ADMISSION_EXPIRED_TYPE | typeof SHOPPER_FINISHED_TYPE;

/**
 * Id rules: a staff action changes the queue at most once (`<actionId>:<type>`); a turn is one number of
 * one entry, admitted once and ended once (`<entryId>:<number>:<type>`).
 */
export const queueChangeId = (type: QueueChangeType, actionId: string): string => `${actionId}:${type}`;
export const shopperTurnId = (type: TurnType, entryId: string, number: number): string =>
  `${entryId}:${number}:${type}`;

/** The data of each type. */
interface QueueDataOf {
  [QUEUE_OPENED_TYPE]: QueueOpenedData;
  [QUEUE_PAUSED_TYPE]: QueueChangeData;
  [QUEUE_RESUMED_TYPE]: QueueChangeData;
  [QUEUE_UPDATED_TYPE]: QueueUpdatedData;
  [QUEUE_CLOSED_TYPE]: QueueChangeData;
  [SHOPPER_ADMITTED_TYPE]: ShopperAdmittedData;
  [ADMISSION_EXPIRED_TYPE]: ShopperTurnData;
  [SHOPPER_FINISHED_TYPE]: ShopperFinishedData;
}

/** The CloudEvent of a queue change made by staff (subject: the staff action). */
export function queueChangeEvent<T extends QueueChangeType>(
  type: T,
  data: QueueDataOf[T],
  at: Date,
): CloudEvent<T, QueueDataOf[T]> {
  return cloudEvent(type, queueChangeId(type, data.actionId), data.actionId, data, at);
}

/** The CloudEvent of a step of a shopper's turn (subject: the queue entry). */
export function shopperTurnEvent<T extends TurnType>(
  type: T,
  data: QueueDataOf[T],
  at: Date,
): CloudEvent<T, QueueDataOf[T]> {
  return cloudEvent(type, shopperTurnId(type, data.entryId, data.number), data.entryId, data, at);
}
