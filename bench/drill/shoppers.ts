/**
 * Flash-sale load for the fault drill: virtual shoppers who hold 1-3 random seats with a short ttl,
 * then release, confirm, or walk away (the hold expires). Requests go to a random live instance, as a
 * load balancer would spread them. Every answer is counted, and every hold's fate as the client saw
 * it is kept in a ledger the invariant checks compare with PostgreSQL, Redis and Kafka afterwards.
 */
import { randomUUID } from 'node:crypto';

/** What the client knows of a hold. `unsure`: a request about it got no answer (instance killed). */
export type Fate = 'held' | 'released' | 'confirmed' | 'expired' | 'unsure';

export interface HoldLedgerEntry {
  holdId: string;
  seatIds: string[];
  fate: Fate;
  /**
   * When the client knew for sure its seats were held by this hold: from the 201 answer until the
   * earliest of its expiresAt and the moment a release or confirm was sent (ms since the epoch, the
   * machine's one clock). Two holds of one seat whose sure intervals overlap are a seat in two holds.
   */
  heldFrom: number;
  heldUntil: number;
  /** a confirm answered 201/200: its seats are booked for good from this moment */
  bookedFrom?: number;
}

export interface Instance {
  name: string;
  base: string;
  /** false while the drill has killed or paused it: the load balancer sends it nothing new */
  live: boolean;
}

export class Counts {
  requests = 0;
  holds = 0;
  noAnswer = 0;
  statuses: Record<number, number> = {};
  /** any error answer but 409, 422 and 503 with Retry-After: what the drill must never see */
  badErrors: string[] = [];

  add(status: number, retryAfter: string | null, what: string): void {
    this.requests++;
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
    if (status >= 400 && status !== 409 && status !== 422 && !(status === 503 && retryAfter)) {
      this.badErrors.push(`${what} -> ${status}${status === 503 ? ' without Retry-After' : ''}`);
    }
  }
}

const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Shoppers {
  readonly ledger = new Map<string, HoldLedgerEntry>();
  counts = new Counts();
  private running = false;
  private loops: Promise<void>[] = [];
  /** when set, shoppers pick only among these seats (to make them collide on purpose) */
  private hot?: string[];

  constructor(
    private readonly instances: Instance[],
    private readonly eventId: string,
    private readonly seats: string[],
    private readonly tokens: string[],
  ) {}

  start(): void {
    this.running = true;
    this.loops = this.tokens.map((token) => this.shop(token));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** Every shopper fights over the first `n` seats until `hotSeats()` is called again without n. */
  hotSeats(n?: number): void {
    this.hot = n ? this.seats.slice(0, n) : undefined;
  }

  /** Starts a new tally (per drill phase); the ledger carries on. */
  resetCounts(): Counts {
    const done = this.counts;
    this.counts = new Counts();
    return done;
  }

  private async call(token: string, method: string, path: string, body?: unknown) {
    const live = this.instances.filter((i) => i.live);
    if (live.length === 0) {
      await sleep(100);
      return null;
    }
    const target = pick(live);
    try {
      const res = await fetch(`${target.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      this.counts.add(
        res.status,
        res.headers.get('retry-after'),
        `${method} ${path.split('/').slice(0, 3).join('/')}`,
      );
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    } catch {
      // connection refused or reset, or no answer in time: the instance died or stopped
      this.counts.noAnswer++;
      return null;
    }
  }

  private async shop(token: string): Promise<void> {
    while (this.running) {
      const wanted = new Set<string>();
      const n = 1 + Math.floor(Math.random() * 3);
      while (wanted.size < n) {
        wanted.add(pick(this.hot ?? this.seats));
      }
      const ttlSeconds = 1 + Math.floor(Math.random() * 3);
      const res = await this.call(token, 'POST', `/v1/events/${this.eventId}/holds`, {
        seatIds: [...wanted],
        ttlSeconds,
      });
      if (!res || res.status !== 201) {
        await sleep(50 + Math.random() * 200);
        continue;
      }
      this.counts.holds++;
      const entry: HoldLedgerEntry = {
        holdId: res.body.holdId as string,
        seatIds: [...wanted],
        fate: 'held',
        heldFrom: Date.now(),
        heldUntil: Date.parse(res.body.expiresAt as string),
      };
      this.ledger.set(entry.holdId, entry);
      await sleep(Math.random() * 1500);
      const roll = Math.random();
      if (roll < 0.55) {
        // from here the release or confirm may take effect at any moment
        entry.heldUntil = Math.min(entry.heldUntil, Date.now());
      }
      // most shoppers give up or release; a few buy (seats booked stay booked, so buying is kept rare
      // enough that the sale does not sell out during the drill)
      if (roll < 0.4) {
        const r = await this.call(token, 'DELETE', `/v1/holds/${entry.holdId}`);
        // 204 also answers a release of a hold that had already expired: "released" is not proof it did not
        entry.fate = !r ? 'unsure' : r.status === 204 ? 'released' : r.status === 503 ? 'unsure' : entry.fate;
      } else if (roll < 0.55) {
        const r = await this.call(token, 'POST', `/v1/holds/${entry.holdId}/confirm`, {
          orderId: randomUUID(),
        });
        if (!r || r.status === 503) {
          entry.fate = 'unsure';
        } else if (r.status === 201 || r.status === 200) {
          entry.fate = 'confirmed';
          entry.bookedFrom = Date.now();
        } else if (r.body.code === 'HOLD_EXPIRED') {
          entry.fate = 'expired';
        }
      }
      // else: walks away; the hold must expire (fate stays 'held')
    }
  }
}
