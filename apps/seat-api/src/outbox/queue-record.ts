import {
  ADMISSION_EXPIRED_TYPE,
  QUEUE_CLOSED_TYPE,
  QUEUE_OPENED_TYPE,
  QUEUE_ORDERS,
  QUEUE_PAUSED_TYPE,
  QUEUE_RESUMED_TYPE,
  QUEUE_UPDATED_TYPE,
  queueChangeEvent,
  QueueCloudEvent,
  QueueOrder,
  SEAT_STATUS_RECORD_FIELDS as S,
  SHOPPER_ADMITTED_TYPE,
  SHOPPER_FINISH_REASONS,
  SHOPPER_FINISHED_TYPE,
  ShopperFinishReason,
  shopperTurnEvent,
} from '@app/contracts';

const ORDERS: ReadonlySet<string> = new Set(QUEUE_ORDERS);
const FINISH_REASONS: ReadonlySet<string> = new Set(SHOPPER_FINISH_REASONS);

/**
 * The CloudEvent of an on-sale queue record (hold-store/lua/queue.lua q_record and the queue scripts), or
 * null when a field its type needs is missing or wrong (a record of another version: moved aside).
 * `f` reads a record field by its name in SEAT_STATUS_RECORD_FIELDS.
 */
export function queueStatusFrom(
  type: string,
  eventId: string,
  at: Date,
  f: (field: keyof typeof S) => string | undefined,
): QueueCloudEvent | null {
  const int = (field: keyof typeof S): number | null => {
    const n = Number(f(field) ?? NaN);
    return Number.isInteger(n) && n >= 0 ? n : null;
  };
  const iso = (field: keyof typeof S): string | null => {
    const n = int(field);
    return n === null ? null : new Date(n).toISOString();
  };
  if (type === SHOPPER_ADMITTED_TYPE || type === ADMISSION_EXPIRED_TYPE || type === SHOPPER_FINISHED_TYPE) {
    const [entryId, userId, number, activeShoppers] = [
      f('entryId'),
      f('userId'),
      int('number'),
      int('activeShoppers'),
    ];
    if (!entryId || !userId || !number || activeShoppers === null) {
      return null;
    }
    const turn = { eventId, entryId, userId, number, activeShoppers };
    if (type === SHOPPER_ADMITTED_TYPE) {
      const passExpiresAt = iso('passExpiresAt');
      return passExpiresAt ? shopperTurnEvent(type, { ...turn, passExpiresAt }, at) : null;
    }
    if (type === ADMISSION_EXPIRED_TYPE) {
      return shopperTurnEvent(type, turn, at);
    }
    const reason = f('reason');
    return reason && FINISH_REASONS.has(reason)
      ? shopperTurnEvent(type, { ...turn, reason: reason as ShopperFinishReason }, at)
      : null;
  }
  const actionId = f('actionId');
  if (!actionId) {
    return null;
  }
  const change = { eventId, actionId };
  switch (type) {
    case QUEUE_OPENED_TYPE: {
      const [opensAt, salesStartAt, order] = [iso('opensAt'), iso('salesStartAt'), f('order')];
      const [admitPerMinute, maxActiveShoppers] = [int('admitPerMinute'), int('maxActiveShoppers')];
      return opensAt && salesStartAt && order && ORDERS.has(order) && admitPerMinute && maxActiveShoppers
        ? queueChangeEvent(
            type,
            {
              ...change,
              opensAt,
              salesStartAt,
              order: order as QueueOrder,
              admitPerMinute,
              maxActiveShoppers,
            },
            at,
          )
        : null;
    }
    case QUEUE_UPDATED_TYPE: {
      const [admitPerMinute, maxActiveShoppers, letIn] = [
        int('admitPerMinute'),
        int('maxActiveShoppers'),
        int('letIn'),
      ];
      return admitPerMinute && maxActiveShoppers && letIn !== null
        ? queueChangeEvent(type, { ...change, admitPerMinute, maxActiveShoppers, letIn }, at)
        : null;
    }
    case QUEUE_PAUSED_TYPE:
    case QUEUE_RESUMED_TYPE:
    case QUEUE_CLOSED_TYPE:
      return queueChangeEvent(type, change, at);
    default:
      return null;
  }
}
