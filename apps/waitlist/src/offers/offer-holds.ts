import { Injectable, Logger } from '@nestjs/common';
import { createHash, webcrypto } from 'node:crypto';
import { SignJWT } from 'jose';
import { WaitlistConfig } from '@app/config';
import type { PlacesData } from '@app/contracts';
import type { OfferAsk } from '@app/database';

/**
 * What an offer asks the seat API to hold: the freed seats themselves, the best block of a quantity, or
 * places of a general-admission area.
 */
export type OfferSeats =
  | { seatIds: string[] }
  | { bestAvailable: { quantity: number; category?: string } }
  | { places: PlacesData[] };

export interface OfferHold {
  holdId: string;
  seatIds: string[];
  /** The places it holds, when it holds any (the seat API's HoldView). */
  places?: PlacesData[];
  expiresAt: string;
}

/**
 * The seat API refused this hold, and would refuse it again now. `scope`:
 * - 'entry': this ask alone is refused (its seats are taken, no block of the party's size is free, the
 *   area has too few places, the user's own hold limit): the next entry is tried;
 * - 'caller': the user is over their own rate limit (429: every caller has their own), so the seat API
 *   did not look at the ask at all; for the queue, as 'entry';
 * - 'show': every ask of the show would be (it takes no holds: cancelled, closed, over or unknown).
 * `ttlMaxSeconds`: the ttl asked is over the show's longest hold, this one (asked again with it).
 */
export interface OfferRefused {
  refused: string;
  scope: 'entry' | 'caller' | 'show';
  ttlMaxSeconds?: number;
}

/** Refusals that hold for every entry of the show: nobody can be offered anything now. */
const SHOW_CLOSED = new Set(['EVENT_ENDED', 'SALES_CLOSED', 'EVENT_CANCELLED', 'EVENT_NOT_FOUND']);

/**
 * Answers about this ask alone: a malformed or impossible ask (400, 404), seats or limits that say no (409,
 * 422), the user's own rate limit (429). Not among them, so thrown and the show tried again: 5xx (the seat
 * API or its Redis down or busy, 503 BUSY for seat-lock contention), 401 and 403 (this app's token is
 * refused: every ask would be), a request that got no answer, and 409 IDEMPOTENCY_IN_PROGRESS (the same
 * ask is still running: what it did is learnt by asking again).
 */
const REFUSALS = new Set([400, 404, 409, 422, 429]);

/** The body of an offer hold: the seats, and its ttl. */
export function offerAsk(sourceEventId: string, seats: OfferSeats, ttlSeconds: number): OfferAsk {
  return { sourceEventId, body: JSON.stringify({ ...seats, ttlSeconds }) };
}

/**
 * Makes an offer's hold through the seat API over HTTP: apps/waitlist must not import apps/seat-api, and the
 * hold store is the seat API's (its Lua scripts, seat locks, policy checks, the seat.status records of every
 * change). The hold is an ordinary hold of the user (their token's `sub`): they read, confirm or release it
 * with their own token and their limits apply. So the app signs a short token in the user's name with the
 * seat API's secret (it is trusted as the seat API is), with the role `waitlist` (an offer needs no admission
 * pass of the show's on-sale queue), and calls the customer routes: the hold route (the
 * one that takes `bestAvailable` and Idempotency-Key), and reading and releasing a hold.
 *
 * The Idempotency-Key is derived from the freed change, the entry and the ask: the same ask sent again gets
 * the first answer back (the hold made, or the refusal), never a second hold.
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

  /** WAITLIST_OFFER_TTL_SECONDS: how long an offer holds its seats, unless the show caps holds lower. */
  get ttlSeconds(): number {
    return this.config.offers.ttlSeconds;
  }

  /** Sends the ask for `entryId` as a hold of `userId`'s. */
  async ask(
    userId: string,
    eventId: string,
    entryId: string,
    ask: OfferAsk,
  ): Promise<OfferHold | OfferRefused> {
    const res = await this.send(userId, 'POST', `/v1/events/${eventId}/holds`, ask.body, {
      'idempotency-key': idempotencyKey(ask.sourceEventId, entryId, ask.body),
    });
    const answer = (await res.json().catch(() => ({}))) as {
      code?: string;
      errors?: { field?: string; max?: unknown }[];
    };
    if (res.status === 200 || res.status === 201) {
      return answer as OfferHold;
    }
    const code = answer.code ?? String(res.status);
    if (REFUSALS.has(res.status) && code !== 'IDEMPOTENCY_IN_PROGRESS') {
      const scope = SHOW_CLOSED.has(code) ? 'show' : res.status === 429 ? 'caller' : 'entry';
      // a ttl out of range names the show's bounds (the seat API's ttlOutOfRange)
      const ttlMax = answer.errors?.find((e) => e.field === 'ttlSeconds')?.max;
      return typeof ttlMax === 'number'
        ? { refused: code, scope, ttlMaxSeconds: ttlMax }
        : { refused: code, scope };
    }
    throw this.failure('hold', res.status, code);
  }

  /** Whether the user's hold is live (a hold being confirmed counts: it may still be given back). */
  async isActive(userId: string, holdId: string): Promise<boolean> {
    const res = await this.send(userId, 'GET', `/v1/holds/${encodeURIComponent(holdId)}`);
    const answer = (await res.json().catch(() => ({}))) as { status?: string; code?: string };
    if (res.status === 200 || res.status === 404) {
      return answer.status === 'ACTIVE';
    }
    throw this.failure('hold read', res.status, answer.code ?? String(res.status));
  }

  /** Releases the user's hold, as they would; one that ended or was booked meanwhile is left as it is. */
  async release(userId: string, holdId: string): Promise<void> {
    const res = await this.send(userId, 'DELETE', `/v1/holds/${encodeURIComponent(holdId)}`);
    if (res.status === 204 || res.status === 404) {
      return;
    }
    const answer = (await res.json().catch(() => ({}))) as { code?: string };
    if (answer.code !== 'HOLD_CONFIRMED') {
      throw this.failure('release', res.status, answer.code ?? String(res.status));
    }
  }

  private async send(
    userId: string,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    return fetch(`${this.config.offers.seatApiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${await this.token(userId)}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body,
      signal: AbortSignal.timeout(10_000),
    });
  }

  /** Unavailable, busy, in progress: nothing was decided, the show is tried again. */
  private failure(call: string, status: number, code: string): Error {
    this.logger.warn(`${call} for an offer answered ${status} ${code}`);
    return new Error(`seat API answered ${status} ${code} to an offer ${call}`);
  }

  private async token(userId: string): Promise<string> {
    const jwt = new SignJWT({ roles: ['waitlist'] })
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
