import type { AppConfig } from '@app/config';
import type { AccessibleSeatsForAll, EventEntity, OrphanRule, SalesState } from '@app/database';

/** The hold limits an event may set for itself (EventEntity columns; null: the deployment's value). */
export interface HoldLimits {
  defaultHoldTtlSeconds: number;
  maxHoldTtlSeconds: number;
  maxSeatsPerHold: number;
  maxSeatsPerUser: number;
  maxExtensions: number;
  maxHoldLifetimeSeconds: number;
}

export type HoldLimitName = keyof HoldLimits;

/** The limit names in the order the API lists them, with the column that stores each. */
export const HOLD_LIMIT_COLUMNS: Readonly<Record<HoldLimitName, keyof EventEntity>> = {
  defaultHoldTtlSeconds: 'defaultHoldTtlSeconds',
  maxHoldTtlSeconds: 'maxHoldTtlSeconds',
  maxSeatsPerHold: 'maxSeatsPerHold',
  maxSeatsPerUser: 'maxSeatsPerUser',
  maxExtensions: 'maxHoldExtensions',
  maxHoldLifetimeSeconds: 'maxHoldLifetimeSeconds',
};

export const HOLD_LIMIT_NAMES = Object.keys(HOLD_LIMIT_COLUMNS) as HoldLimitName[];

/** An event's own limits: only those it sets (the others are the deployment's). */
export type OwnHoldLimits = Partial<HoldLimits>;

/**
 * What a new hold of the event is checked against: whether it sells, and each limit, its own or else the
 * deployment's (HOLD_* environment values), as of `version` (raised by every change: the hold store makes
 * a hold only under the version it was checked against).
 */
export interface EventPolicy {
  eventId: string;
  version: number;
  sales: SalesState;
  limits: HoldLimits;
  own: OwnHoldLimits;
  /** When the event starts (epoch ms). */
  startsAtMs: number;
  /** start + HOLD_EVENT_RETENTION_SECONDS: past it the event's Redis keys may be gone. */
  retainUntilMs: number;
  /**
   * Holds by seat ids check it in Redis (meta `or`), where it is written with the version, in one step:
   * a hold made under this version is checked against this rule.
   */
  orphanRule: OrphanRule;
  /** Whether ordinary best-available requests may get accessible seats (given to the hold script). */
  accessibleSeatsForAll: AccessibleSeatsForAll;
  /**
   * The current version of the show's price list (null: none, holds are not priced). Part of the policy:
   * a new version raises `version`, so a hold is priced only under the version current when it is made.
   */
  priceListVersion: number | null;
}

/** The deployment's limits: every event's that does not set its own. */
export function deploymentLimits(config: AppConfig): HoldLimits {
  const h = config.holds;
  return {
    defaultHoldTtlSeconds: h.defaultTtlSeconds,
    maxHoldTtlSeconds: h.maxTtlSeconds,
    maxSeatsPerHold: h.maxSeatsPerHold,
    maxSeatsPerUser: h.maxSeatsPerUser,
    maxExtensions: h.maxExtensions,
    maxHoldLifetimeSeconds: h.maxLifetimeSeconds,
  };
}

export function ownLimitsOf(event: EventEntity): OwnHoldLimits {
  const own: OwnHoldLimits = {};
  for (const name of HOLD_LIMIT_NAMES) {
    const value = event[HOLD_LIMIT_COLUMNS[name]] as number | null;
    if (value !== null && value !== undefined) {
      own[name] = value;
    }
  }
  return own;
}

export function policyOf(event: EventEntity, config: AppConfig): EventPolicy {
  const own = ownLimitsOf(event);
  return {
    eventId: event.id,
    version: event.policyVersion,
    sales: event.sales,
    limits: { ...deploymentLimits(config), ...own },
    own,
    startsAtMs: event.startsAt.getTime(),
    retainUntilMs: event.startsAt.getTime() + config.holds.eventRetentionSeconds * 1000,
    orphanRule: event.orphanRule,
    accessibleSeatsForAll: event.accessibleSeatsForAll,
    priceListVersion: event.priceListVersion ?? null,
  };
}

/**
 * Why a set of limits cannot work together, per field (empty when they can): a default ttl outside the
 * ttl range, or a hold allowed more seats than its user may hold at all. Checked on the limits the event
 * would have after a change (its own over the deployment's), so a change never leaves it unusable.
 */
export function limitConflicts(
  limits: HoldLimits,
  minTtlSeconds: number,
): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  if (limits.maxHoldTtlSeconds < minTtlSeconds) {
    out.push({
      field: 'maxHoldTtlSeconds',
      message: `must be at least the deployment's minimum hold ttl, ${minTtlSeconds}`,
    });
  }
  if (
    limits.defaultHoldTtlSeconds < minTtlSeconds ||
    limits.defaultHoldTtlSeconds > limits.maxHoldTtlSeconds
  ) {
    out.push({
      field: 'defaultHoldTtlSeconds',
      message: `must be between ${minTtlSeconds} and maxHoldTtlSeconds (${limits.maxHoldTtlSeconds})`,
    });
  }
  if (limits.maxSeatsPerHold > limits.maxSeatsPerUser) {
    out.push({
      field: 'maxSeatsPerHold',
      message: `must not exceed maxSeatsPerUser (${limits.maxSeatsPerUser})`,
    });
  }
  return out;
}

/** The columns of an event's own settings as given at creation (a limit left out or null: the deployment's). */
export function ownColumns(
  settings: ({ [K in HoldLimitName]?: number | null } & { sales?: 'OPEN' | 'CLOSED' | null }) | undefined,
): Partial<EventEntity> {
  const columns: Partial<Record<keyof EventEntity, unknown>> = { sales: settings?.sales ?? 'OPEN' };
  for (const name of HOLD_LIMIT_NAMES) {
    columns[HOLD_LIMIT_COLUMNS[name]] = settings?.[name] ?? null;
  }
  return columns as Partial<EventEntity>;
}
