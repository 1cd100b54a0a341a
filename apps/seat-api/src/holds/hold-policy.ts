import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { EventPolicy } from '../catalogue/policy/event-policy';
import {
  eventCancelled,
  eventNotFound,
  EventPolicyService,
  salesClosed,
} from '../catalogue/policy/event-policy.service';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { HoldTerms } from '../hold-store';
import { tooManySeats, ttlOutOfRange } from './hold-errors';

/** Holds sent again under a reloaded policy when the event's settings changed meanwhile, at most. */
const POLICY_ATTEMPTS = 3;

/** The hold store refused a hold: the event's settings changed since its policy was read. */
export class PolicyChanged extends Error {}

/** Why the event's policy refuses a hold (as this instance last read it): checked against Redis first. */
class PolicyRefusal extends Error {
  constructor(readonly refusal: DomainError) {
    super(refusal.message);
  }
}

/**
 * Every new hold (seats named or best available, a customer's or staff's on their behalf) is made under
 * the event's policy: sales open, the seats per hold, the ttl, and the terms its record keeps (the caps,
 * the policy version). This is the one place that says how.
 *
 * The policy is the one this instance keeps (EventPolicyService), never trusted blindly: the hold store
 * makes a hold only under the version it was checked against, else POLICY_CHANGED, and the hold is sent
 * again under the reloaded policy; a refusal decided from the kept copy (sales closed, too many seats) is
 * first checked against Redis's version, so a sale reopened on another instance is not refused from a
 * stale copy. A policy that keeps changing under the hold answers 503 BUSY after a few attempts.
 */
@Injectable()
export class HoldPolicy {
  constructor(
    private readonly policies: EventPolicyService,
    private readonly config: AppConfig,
  ) {}

  /**
   * Runs `make` (which sends the hold, throwing PolicyChanged when the store says the policy moved on)
   * with the terms the event's current policy gives a hold of `seats` seats for `ttlSeconds` (its
   * default when left out).
   */
  async attempt<T>(
    eventId: string,
    seats: number,
    ttlSeconds: number | undefined,
    make: (terms: HoldTerms, policy: EventPolicy) => Promise<T>,
  ): Promise<T> {
    let policy = await this.policies.forHold(eventId);
    for (let attempt = 1; ; attempt++) {
      if (!policy) {
        throw eventNotFound(eventId);
      }
      try {
        return await make(this.termsUnder(policy, seats, ttlSeconds), policy);
      } catch (e) {
        if (e instanceof PolicyRefusal) {
          const current = await this.policies.confirmed(policy);
          if (current === policy || attempt >= POLICY_ATTEMPTS) {
            throw e.refusal;
          }
          policy = current;
        } else if (e instanceof PolicyChanged) {
          if (attempt >= POLICY_ATTEMPTS) {
            throw new DomainError(
              ErrorCode.BUSY,
              "The event's settings are being changed right now; try again shortly",
            );
          }
          policy = await this.policies.reload(eventId);
        } else {
          throw e;
        }
      }
    }
  }

  /** The terms `policy` gives the hold, or (PolicyRefusal) why it refuses it. */
  private termsUnder(policy: EventPolicy, seats: number, ttlSeconds: number | undefined): HoldTerms {
    const { limits } = policy;
    const { minTtlSeconds } = this.config.holds;
    if (policy.sales === 'CANCELLED') {
      throw new PolicyRefusal(eventCancelled(policy.eventId));
    }
    if (policy.sales === 'CLOSED') {
      throw new PolicyRefusal(salesClosed(policy.eventId));
    }
    if (seats > limits.maxSeatsPerHold) {
      throw new PolicyRefusal(tooManySeats(limits.maxSeatsPerHold));
    }
    if (ttlSeconds !== undefined && (ttlSeconds < minTtlSeconds || ttlSeconds > limits.maxHoldTtlSeconds)) {
      throw new PolicyRefusal(ttlOutOfRange(minTtlSeconds, limits.maxHoldTtlSeconds));
    }
    return {
      ttlMs: (ttlSeconds ?? limits.defaultHoldTtlSeconds) * 1000,
      maxLifetimeMs: limits.maxHoldLifetimeSeconds * 1000,
      maxSeatsPerUser: limits.maxSeatsPerUser,
      // the hold is made under this policy only, and keeps its caps in its record
      policyVersion: policy.version,
      maxExtensions: limits.maxExtensions,
      maxTtlMs: limits.maxHoldTtlSeconds * 1000,
    };
  }
}
