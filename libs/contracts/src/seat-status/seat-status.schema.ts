/**
 * JSON Schemas (draft-07, the dialect AsyncAPI 3 message payloads use by default) of every message on
 * `seat.status`: the AsyncAPI document (docs/asyncapi.yaml) carries these, and parseSeatStatus checks
 * with them, so the document, the publisher and the readers share one definition.
 */
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { BOOKING_CANCELLED_TYPE } from '../booking-cancelled/booking-cancelled.event';
import { SEAT_EXPIRED_TYPE } from '../seat-expired/seat-expired.event';
import {
  HOLD_CONFIRMED_TYPE,
  HOLD_CREATED_TYPE,
  HOLD_EXTENDED_TYPE,
  HOLD_RELEASE_REASONS,
  HOLD_RELEASED_TYPE,
  SEAT_STATUS_TYPES,
  SEATS_BLOCKED_TYPE,
  SEATS_UNBLOCKED_TYPE,
  SeatStatusCloudEvent,
  STAFF_ACTION_RECORDED_TYPE,
  STAFF_ACTIONS,
  SeatStatusType,
  WAITLIST_OFFER_MADE_TYPE,
} from './seat-status.event';
import {
  ADMISSION_EXPIRED_TYPE,
  QUEUE_CLOSED_TYPE,
  QUEUE_OPENED_TYPE,
  QUEUE_ORDERS,
  QUEUE_PAUSED_TYPE,
  QUEUE_RESUMED_TYPE,
  QUEUE_UPDATED_TYPE,
  SHOPPER_ADMITTED_TYPE,
  SHOPPER_FINISH_REASONS,
  SHOPPER_FINISHED_TYPE,
} from './queue.event';

type Schema = Record<string, unknown>;

const text = { type: 'string', minLength: 1 };
const instant = { type: 'string', format: 'date-time' };
const seatIds = { type: 'array', items: text };
/** A hold's places of general-admission areas: optional, so a hold of seats reads as before. */
const places = {
  type: 'array',
  items: {
    type: 'object',
    required: ['area', 'quantity'],
    properties: { area: text, quantity: { type: 'integer', minimum: 1 } },
  },
};
const holdChange = { eventId: text, holdId: text, userId: text, seatIds, places };
const count = { type: 'integer', minimum: 0 };
const queueChange = { eventId: text, actionId: text };
const turn = {
  eventId: text,
  entryId: text,
  userId: text,
  number: { type: 'integer', minimum: 1 },
  activeShoppers: count,
};
const TURN = ['eventId', 'entryId', 'userId', 'number', 'activeShoppers'];
const amount = { type: 'integer', minimum: 0 };
/** BookingPriceData: all optional, so a HoldConfirmed without prices is as valid as before. */
const bookingPrice = {
  currency: { type: 'string', pattern: '^[A-Z]{3}$' },
  priceListVersion: { type: 'integer', minimum: 1 },
  promoCode: text,
  lines: {
    type: 'array',
    items: {
      type: 'object',
      required: ['seatId', 'category', 'ticketType', 'unitPrice', 'discount'],
      properties: { seatId: text, category: text, ticketType: text, unitPrice: amount, discount: amount },
    },
  },
  subtotal: amount,
  discountTotal: amount,
  total: amount,
};

function cloudEvent(
  type: string,
  title: string,
  description: string,
  data: Schema,
  required: string[],
): Schema {
  return {
    $id: `urn:seat-hold:${type}`,
    title,
    description,
    type: 'object',
    required: ['specversion', 'id', 'source', 'type', 'time', 'datacontenttype', 'subject', 'data'],
    properties: {
      specversion: { const: '1.0' },
      id: text,
      source: { type: 'string', pattern: '^/seat-hold/events/.+' },
      type: { const: type },
      time: instant,
      datacontenttype: { const: 'application/json' },
      subject: text,
      data: { type: 'object', required, properties: data },
    },
  };
}

/** The CloudEvent schema of each type, by type. */
export const SEAT_STATUS_SCHEMAS: Record<SeatStatusType, Schema> = {
  [HOLD_CREATED_TYPE]: cloudEvent(
    HOLD_CREATED_TYPE,
    'Hold created',
    'Seats became held. id `<holdId>:created`.',
    { ...holdChange, expireAt: instant },
    ['eventId', 'holdId', 'userId', 'seatIds', 'expireAt'],
  ),
  [HOLD_EXTENDED_TYPE]: cloudEvent(
    HOLD_EXTENDED_TYPE,
    'Hold extended',
    'A hold runs longer. id `<holdId>:extended:<extension>`.',
    { ...holdChange, expireAt: instant, extension: { type: 'integer', minimum: 1 } },
    ['eventId', 'holdId', 'userId', 'seatIds', 'expireAt', 'extension'],
  ),
  [HOLD_RELEASED_TYPE]: cloudEvent(
    HOLD_RELEASED_TYPE,
    'Hold released',
    'The seats of a hold are free again before it ran out (seatIds: the seats it still held). id `<holdId>:released`.',
    { ...holdChange, reason: { enum: Object.values(HOLD_RELEASE_REASONS) } },
    ['eventId', 'holdId', 'userId', 'seatIds', 'reason'],
  ),
  [HOLD_CONFIRMED_TYPE]: cloudEvent(
    HOLD_CONFIRMED_TYPE,
    'Hold confirmed',
    'The seats of a hold are booked. id `<holdId>:confirmed`. A hold made while its show had a price list ' +
      'carries what the booking was sold for: lines (amounts in minor units of currency), subtotal, ' +
      'discountTotal, total, priceListVersion and promoCode.',
    { ...holdChange, orderId: text, ...bookingPrice },
    ['eventId', 'holdId', 'userId', 'seatIds', 'orderId'],
  ),
  [SEAT_EXPIRED_TYPE]: cloudEvent(
    SEAT_EXPIRED_TYPE,
    'Seat expired',
    'One seat of a hold that ran out is free again; the same message as on seat.expired. id `<holdId>:<seatId>`. ' +
      'The places of a general-admission area are one message per area: seatId is the area\u2019s name, ' +
      'area the same and quantity how many places were freed.',
    {
      eventId: text,
      seatId: text,
      holdId: text,
      userId: text,
      expireAt: instant,
      fencingToken: { type: 'integer' },
      area: text,
      quantity: { type: 'integer', minimum: 1 },
    },
    ['eventId', 'seatId', 'holdId', 'userId', 'expireAt', 'fencingToken'],
  ),
  [BOOKING_CANCELLED_TYPE]: cloudEvent(
    BOOKING_CANCELLED_TYPE,
    'Booking cancelled',
    'Staff cancelled a booking; its seats are free again. id: the booking id.',
    { eventId: text, bookingId: text, holdId: text, orderId: text, userId: text, seatIds, places },
    ['eventId', 'bookingId', 'holdId', 'orderId', 'userId', 'seatIds'],
  ),
  [WAITLIST_OFFER_MADE_TYPE]: cloudEvent(
    WAITLIST_OFFER_MADE_TYPE,
    'Waiting-list offer made',
    'Seats were held for a waiting-list entry and offered to its user. id `<entryId>:offer:<holdId>`.',
    { eventId: text, entryId: text, userId: text, holdId: text, seatIds, offerExpiresAt: instant },
    ['eventId', 'entryId', 'userId', 'holdId', 'seatIds', 'offerExpiresAt'],
  ),
  [SEATS_BLOCKED_TYPE]: cloudEvent(
    SEATS_BLOCKED_TYPE,
    'Seats blocked',
    'Staff took seats off sale (they read booked to the public). id `<actionId>:blocked`.',
    { eventId: text, seatIds, actionId: text },
    ['eventId', 'seatIds', 'actionId'],
  ),
  [SEATS_UNBLOCKED_TYPE]: cloudEvent(
    SEATS_UNBLOCKED_TYPE,
    'Seats unblocked',
    'Staff put blocked seats back on sale: they are free. id `<actionId>:unblocked`.',
    { eventId: text, seatIds, actionId: text },
    ['eventId', 'seatIds', 'actionId'],
  ),
  [STAFF_ACTION_RECORDED_TYPE]: cloudEvent(
    STAFF_ACTION_RECORDED_TYPE,
    'Staff action recorded',
    'An audited staff action made its change, as its audit entry records it (an action given up or ' +
      'refused has none). id `<actionId>:staff`.',
    {
      eventId: text,
      actionId: text,
      actor: text,
      action: { enum: [...STAFF_ACTIONS] },
      target: text,
      reason: { type: ['string', 'null'] },
      at: instant,
    },
    ['eventId', 'actionId', 'actor', 'action', 'target', 'reason', 'at'],
  ),
  [QUEUE_OPENED_TYPE]: cloudEvent(
    QUEUE_OPENED_TYPE,
    'Queue opened',
    "Staff set up the show's on-sale queue: joining opens at opensAt, admission starts at salesStartAt. id `<actionId>:QueueOpened`.",
    {
      ...queueChange,
      opensAt: instant,
      salesStartAt: instant,
      order: { enum: [...QUEUE_ORDERS] },
      admitPerMinute: { type: 'integer', minimum: 1 },
      maxActiveShoppers: { type: 'integer', minimum: 1 },
    },
    ['eventId', 'actionId', 'opensAt', 'salesStartAt', 'order', 'admitPerMinute', 'maxActiveShoppers'],
  ),
  [QUEUE_PAUSED_TYPE]: cloudEvent(
    QUEUE_PAUSED_TYPE,
    'Queue paused',
    'Staff paused admission (passes given stay good). id `<actionId>:QueuePaused`.',
    queueChange,
    ['eventId', 'actionId'],
  ),
  [QUEUE_RESUMED_TYPE]: cloudEvent(
    QUEUE_RESUMED_TYPE,
    'Queue resumed',
    'Staff resumed admission at the pace. id `<actionId>:QueueResumed`.',
    queueChange,
    ['eventId', 'actionId'],
  ),
  [QUEUE_UPDATED_TYPE]: cloudEvent(
    QUEUE_UPDATED_TYPE,
    'Queue updated',
    'Staff changed the pace or the cap, or let shoppers in at once (letIn). id `<actionId>:QueueUpdated`.',
    {
      ...queueChange,
      admitPerMinute: { type: 'integer', minimum: 1 },
      maxActiveShoppers: { type: 'integer', minimum: 1 },
      letIn: count,
    },
    ['eventId', 'actionId', 'admitPerMinute', 'maxActiveShoppers', 'letIn'],
  ),
  [QUEUE_CLOSED_TYPE]: cloudEvent(
    QUEUE_CLOSED_TYPE,
    'Queue closed',
    'Staff switched the queue off: holds need no pass any more. id `<actionId>:QueueClosed`.',
    queueChange,
    ['eventId', 'actionId'],
  ),
  [SHOPPER_ADMITTED_TYPE]: cloudEvent(
    SHOPPER_ADMITTED_TYPE,
    'Shopper admitted',
    "A queue entry's turn came: its shopper may hold with their pass until passExpiresAt; activeShoppers counts them. id `<entryId>:<number>:ShopperAdmitted`.",
    { ...turn, passExpiresAt: instant },
    [...TURN, 'passExpiresAt'],
  ),
  [ADMISSION_EXPIRED_TYPE]: cloudEvent(
    ADMISSION_EXPIRED_TYPE,
    'Admission expired',
    "An admitted shopper's pass ran out with no hold made: their turn is over. id `<entryId>:<number>:AdmissionExpired`.",
    turn,
    TURN,
  ),
  [SHOPPER_FINISHED_TYPE]: cloudEvent(
    SHOPPER_FINISHED_TYPE,
    'Shopper finished',
    "An admitted shopper's turn ended: their last hold was confirmed, released or ran out, or they left. id `<entryId>:<number>:ShopperFinished`.",
    { ...turn, reason: { enum: [...SHOPPER_FINISH_REASONS] } },
    [...TURN, 'reason'],
  ),
};

/** A message that is not one of the seat-status topic's events. */
export class SeatStatusSchemaError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'SeatStatusSchemaError';
  }
}

let validators: Map<string, ValidateFunction> | undefined;

function validatorOf(type: string): ValidateFunction | undefined {
  if (!validators) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    validators = new Map(SEAT_STATUS_TYPES.map((t) => [t, ajv.compile(SEAT_STATUS_SCHEMAS[t])]));
  }
  return validators.get(type);
}

/** Checks a Kafka message value (bytes, text or parsed JSON) against its type's schema and returns it. */
export function parseSeatStatus(value: unknown): SeatStatusCloudEvent {
  let ce: unknown = Buffer.isBuffer(value) ? value.toString('utf8') : value;
  if (typeof ce === 'string') {
    try {
      ce = JSON.parse(ce);
    } catch {
      throw new SeatStatusSchemaError('value is not JSON');
    }
  }
  const type = typeof ce === 'object' && ce !== null ? (ce as { type?: unknown }).type : undefined;
  const validate = typeof type === 'string' ? validatorOf(type) : undefined;
  if (!validate) {
    throw new SeatStatusSchemaError(`unknown type ${String(type)}`);
  }
  if (!validate(ce)) {
    throw new SeatStatusSchemaError(
      `not a ${String(type)}: ${(validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`).join('; ')}`,
    );
  }
  return ce as SeatStatusCloudEvent;
}
