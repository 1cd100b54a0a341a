import { Injectable, Logger } from '@nestjs/common';
import { createHash, webcrypto } from 'node:crypto';
import { SignJWT } from 'jose';
import { WaitlistConfig } from '@app/config';

/** What an offer asks the seat API to hold: the freed seats themselves, or the best block of a quantity. */
export type OfferSeats = { seatIds: string[] } | { bestAvailable: { quantity: number; category?: string } };

export interface OfferHold {
  holdId: string;
  seatIds: string[];
  expiresAt: string;
}

/**
 * The seat API refused this hold, and would refuse it again now: `scope` 'entry' when only this ask is
 * refused (its seats are taken, no block of the party's size is free, the user is over their own hold or
 * rate limit: the next entry is tried), 'show' when every ask of the show would be (it takes no holds: it is
 * cancelled, closed, over or unknown).
 */
export interface OfferRefused {
  refused: string;
  scope: 'entry' | 'show';
}

/** Refusals that hold for every entry of the show: nobody can be offered anything now. */
const SHOW_CLOSED = new Set(['EVENT_ENDED', 'SALES_CLOSED', 'EVENT_CANCELLED', 'EVENT_NOT_FOUND']);

/**
 * Answers about this ask alone: a malformed or impossible ask (400, 404), seats or limits that say no (409,
 * 422), the user's own rate limit (429: every caller has their own). Not among them, so thrown and the
 * show tried again: 5xx (the seat API or its Redis down or busy, 503 BUSY for seat-lock contention), 401
 * and 403 (this app's token is refused: every ask would be), a request that got no answer, and 409
 * IDEMPOTENCY_IN_PROGRESS (the same ask is still running: what it did is learnt by asking again).
 */
const REFUSALS = new Set([400, 404, 409, 422, 429]);

/**
 * Makes an offer's hold through the seat API over HTTP: apps/waitlist must not import apps/seat-api, and the
 * hold store is the seat API's (its Lua scripts, seat locks, policy checks, the seat.status records of every
 * change). The hold is an ordinary hold of the user (their token's `sub`): they read, confirm or release it
 * with their own token and their limits apply. So the app signs a short token in the user's name with the
 * seat API's secret (it is trusted as the seat API is), and calls the customer route, the one that takes
 * `bestAvailable` and Idempotency-Key.
 *
 * The Idempotency-Key is derived from the freed change and the entry: a consumer that dies after the hold
 * was made but before its transaction committed gets the same hold back on redelivery, never a second one.
 */
@Injectable()
export class OfferHolds {
  private readonly logger = new Logger('OfferHolds');
  /** The secret imported once: jose given the raw bytes would import it again for every offer. */
  private readonly key: Promise<webcrypto.CryptoKey>;

  constructor(private readonly config: WaitlistConfig) {
    const secret = new TextEncoder().encode(config.offers.jwtSecret);
    this.key = webcrypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  }

  async hold(
    userId: string,
    eventId: string,
    seats: OfferSeats,
    change: { sourceEventId: string; entryId: string },
  ): Promise<OfferHold | OfferRefused> {
    const asked = await this.ask(userId, eventId, seats, change, this.config.offers.ttlSeconds);
    if ('ttlMaxSeconds' in asked) {
      // the show caps its holds below WAITLIST_OFFER_TTL_SECONDS: the offer gets the show's longest hold
      // rather than none (the ask differs, so it has its own key, the same on every retry)
      const capped = await this.ask(userId, eventId, seats, change, asked.ttlMaxSeconds);
      return 'ttlMaxSeconds' in capped ? { refused: 'VALIDATION_FAILED', scope: 'entry' } : capped;
    }
    return asked;
  }

  private async ask(
    userId: string,
    eventId: string,
    seats: OfferSeats,
    change: { sourceEventId: string; entryId: string },
    ttlSeconds: number,
  ): Promise<OfferHold | OfferRefused | { ttlMaxSeconds: number }> {
    const body = JSON.stringify({ ...seats, ttlSeconds });
    const res = await fetch(`${this.config.offers.seatApiUrl}/v1/events/${eventId}/holds`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await this.token(userId)}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey(change.sourceEventId, change.entryId, body),
      },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    const answer = (await res.json().catch(() => ({}))) as {
      code?: string;
      errors?: { field?: string; max?: unknown }[];
    };
    if (res.status === 200 || res.status === 201) {
      return answer as OfferHold;
    }
    // a ttl out of range names the show's bounds (hold-errors.ts ttlOutOfRange)
    const ttlMax = answer.errors?.find((e) => e.field === 'ttlSeconds')?.max;
    if (typeof ttlMax === 'number' && ttlMax < ttlSeconds) {
      return { ttlMaxSeconds: ttlMax };
    }
    const code = answer.code ?? String(res.status);
    if (REFUSALS.has(res.status) && code !== 'IDEMPOTENCY_IN_PROGRESS') {
      return { refused: code, scope: SHOW_CLOSED.has(code) ? 'show' : 'entry' };
    }
    // unavailable, busy, in progress: nothing was decided, the show is tried again
    this.logger.warn(`hold for an offer answered ${res.status} ${answer.code ?? ''}`);
    throw new Error(`seat API answered ${res.status} ${answer.code ?? ''} to an offer hold`);
  }

  private async token(userId: string): Promise<string> {
    const jwt = new SignJWT({ roles: [] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setIssuedAt()
      .setExpirationTime('1m');
    const issuer = this.config.offers.jwtIssuer;
    return (issuer ? jwt.setIssuer(issuer) : jwt).sign(await this.key);
  }
}

/** One key per (freed change, entry, what is asked): a retry asks the same, so the seat API replays it. */
export function idempotencyKey(sourceEventId: string, entryId: string, body: string): string {
  const digest = createHash('sha256').update(`${sourceEventId}\n${entryId}\n${body}`).digest('hex');
  return `waitlist:${digest.slice(0, 48)}`;
}

export const isRefused = (r: OfferHold | OfferRefused): r is OfferRefused => 'refused' in r;
