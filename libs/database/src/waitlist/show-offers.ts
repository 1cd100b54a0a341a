import { randomInt } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';

/** An offer as PostgreSQL records it: the freed change it was made from and the entry it went to. */
export interface OfferRecord {
  sourceEventId: string;
  entryId: string;
  userId: string;
  holdId: string;
  seatIds: string[];
  /** The places of a general-admission area its hold took; absent for seats. */
  places?: OfferedPlaces[];
  offerExpiresAt: string;
  /** Stored by a later run than the one that made its hold (WaitlistOfferEntity.recovered). */
  recovered: boolean;
  /** Kafka acknowledged its WaitlistOfferMade already. */
  published: boolean;
}

/** Places of one general-admission area, as an offer holds them. */
export interface OfferedPlaces {
  area: string;
  quantity: number;
}

/**
 * An offer hold as asked for: the freed change it serves and the request body, which with the entry make
 * its Idempotency-Key. Written on the entry before it is sent (WaitlistEntryEntity.offerAsk).
 */
export interface OfferAsk {
  sourceEventId: string;
  body: string;
}

/** An ask whose outcome no run stored, with its entry as it is now (WAITING, or LEFT since). */
export interface UnsettledAsk {
  entryId: string;
  userId: string;
  status: 'WAITING' | 'LEFT';
  ask: OfferAsk;
}

/** A WAITING entry, as the queue is read. */
export interface QueuedEntry {
  id: string;
  userId: string;
  quantity: number;
  category: string | null;
  /** The area whose places it waits for; null: it waits for seats. */
  area: string | null;
}

/** A freed seat, as an offer needs it. */
export interface FreedSeat {
  seatId: string;
  category: string;
}

/**
 * An entry asked for in a run and not offered: `reason`, the refusal that passed it over (null when it was
 * not the entry's: the seats were taken).
 */
export interface PassedEntry {
  entryId: string;
  reason: string | null;
}

/** The lock every run of a show's offers takes besides the show's, under its own id: see announce(). */
const RUN_LOCK = `hashtext('waitlist run')`;

/**
 * The statements of one run of a show's offers (WaitlistRepository.offering): all in one transaction under
 * its lock on the show, except announce() and clearAsks(), committed at once (see each).
 */
export class ShowOffers {
  /** Takes the show's lock, waiting for a run of it in another transaction to end, and this run's own. */
  static async start(tx: EntityManager, db: DataSource, eventId: string): Promise<ShowOffers> {
    const runId = randomInt(-(2 ** 31), 2 ** 31);
    await tx.query(
      `SELECT pg_advisory_xact_lock(hashtextextended($1, 0)), pg_advisory_xact_lock(${RUN_LOCK}, $2)`,
      [`waitlist:${eventId}`, runId],
    );
    return new ShowOffers(tx, db, eventId, runId);
  }

  private constructor(
    private readonly tx: EntityManager,
    private readonly db: DataSource,
    readonly eventId: string,
    /** This run's id: it holds the advisory lock (RUN_LOCK, runId) as long as its transaction lives. */
    private readonly runId: number,
  ) {}

  /** The offers already stored for these changes (by earlier deliveries of them), oldest first. */
  async offersOf(sourceEventIds: string[]): Promise<OfferRecord[]> {
    const rows = await this.tx.query<
      {
        source_event_id: string;
        entry_id: string;
        user_id: string;
        hold_id: string;
        seat_ids: string[];
        places: OfferedPlaces[] | null;
        offer_expires_at: Date;
        recovered: boolean;
        published_at: Date | null;
      }[]
    >(
      `SELECT o.source_event_id, o.entry_id, e.user_id, o.hold_id, o.seat_ids, o.places, o.offer_expires_at,
              o.recovered, o.published_at
         FROM waitlist_offers o JOIN waitlist_entries e ON e.id = o.entry_id
        WHERE o.source_event_id = ANY($1::text[]) ORDER BY o.created_at`,
      [sourceEventIds],
    );
    return rows.map((r) => ({
      sourceEventId: r.source_event_id,
      entryId: r.entry_id,
      userId: r.user_id,
      holdId: r.hold_id,
      seatIds: r.seat_ids,
      ...(r.places ? { places: r.places } : {}),
      offerExpiresAt: r.offer_expires_at.toISOString(),
      recovered: r.recovered,
      published: r.published_at !== null,
    }));
  }

  /** The show's asks whose outcome no run stored (the run died or failed after announcing them). */
  async unsettledAsks(): Promise<UnsettledAsk[]> {
    const rows = await this.tx.query<
      { id: string; user_id: string; status: 'WAITING' | 'LEFT'; offer_ask: OfferAsk }[]
    >(
      `SELECT id, user_id, status, offer_ask FROM waitlist_entries
        WHERE event_id = $1 AND offer_ask IS NOT NULL ORDER BY created_at, id`,
      [this.eventId],
    );
    return rows.map((r) => ({ entryId: r.id, userId: r.user_id, status: r.status, ask: r.offer_ask }));
  }

  /** The offers whose holds ended unbooked LAPSE (a declined offer's entry is LEFT already); how many did. */
  async lapse(holdIds: string[]): Promise<number> {
    const [, lapsed] = await this.tx.query<[unknown[], number]>(
      `UPDATE waitlist_entries SET status = 'LAPSED' WHERE hold_id = ANY($1::text[]) AND status = 'OFFERED'`,
      [holdIds],
    );
    return lapsed;
  }

  /** These seats of the show, in layout order, with their category. */
  async seats(seatIds: string[]): Promise<FreedSeat[]> {
    const rows = await this.tx.query<{ seat_id: string; category: string }[]>(
      `SELECT seat_id, category FROM seats WHERE event_id = $1 AND seat_id = ANY($2::text[]) ORDER BY position`,
      [this.eventId, seatIds],
    );
    return rows.map((r) => ({ seatId: r.seat_id, category: r.category }));
  }

  /**
   * The first `limit` WAITING entries of each queue asked for (the seats' when `seats`, and each of
   * `areas`), first come first served, without those whose earlier ask is still unsettled (they may hold
   * seats or places already: asking again could give them a second hold).
   */
  async queue(limit: number, seats: boolean, areas: string[]): Promise<QueuedEntry[]> {
    const rows = await this.tx.query<
      { id: string; user_id: string; quantity: number; category: string | null; area: string | null }[]
    >(
      `SELECT id, user_id, quantity, category, area FROM (
         (SELECT id, user_id, quantity, category, area, created_at FROM waitlist_entries
           WHERE $2 AND event_id = $1 AND area IS NULL AND status = 'WAITING' AND offer_ask IS NULL
           ORDER BY created_at, id LIMIT $4)
         UNION ALL
         SELECT q.* FROM unnest($3::text[]) AS k(area) CROSS JOIN LATERAL (
           SELECT id, user_id, quantity, category, area, created_at FROM waitlist_entries
            WHERE event_id = $1 AND area = k.area AND status = 'WAITING' AND offer_ask IS NULL
            ORDER BY created_at, id LIMIT $4) q
       ) e ORDER BY created_at, id`,
      [this.eventId, seats, areas, limit],
    );
    return rows.map((r) => ({
      id: r.id,
      userId: r.user_id,
      quantity: r.quantity,
      category: r.category,
      area: r.area,
    }));
  }

  /**
   * Writes the ask on its entry before it is sent, outside the transaction (committed at once: it must
   * outlive a run that dies after the seat API made the hold). False when the entry is no longer WAITING
   * (it left): nothing is asked for it.
   */
  async announce(entryId: string, ask: OfferAsk): Promise<boolean> {
    const asked = await this.whileRunning(
      `UPDATE waitlist_entries SET offer_ask = $3::jsonb WHERE id = $2 AND status = 'WAITING'`,
      [entryId, JSON.stringify(ask)],
    );
    return asked > 0;
  }

  /**
   * Clears asks an earlier run left behind that made no live hold (refused, or its hold ended), each only
   * if it is still that ask. Outside the transaction, like announce(): the transaction's own writes lock
   * their entries until it ends, and these entries may be asked for again in this run.
   */
  async clearAsks(asks: { entryId: string; ask: OfferAsk }[]): Promise<void> {
    if (asks.length > 0) {
      await this.whileRunning(
        `UPDATE waitlist_entries e SET offer_ask = NULL
           FROM jsonb_to_recordset($2::jsonb) AS a(entry_id uuid, ask jsonb)
          WHERE e.id = a.entry_id AND e.offer_ask = a.ask`,
        [JSON.stringify(asks.map((a) => ({ entry_id: a.entryId, ask: a.ask })))],
      );
    }
  }

  /**
   * Runs an UPDATE outside the run's transaction, committed at once, only while that transaction lives: a
   * run whose transaction PostgreSQL ended (its lock (RUN_LOCK, runId) free again) must not write asks
   * while another run may be offering the show, so it is stopped here. `update` ends in its WHERE clause,
   * to which that check is added; its parameters start at `$2` (`$1` is the run's id). The rows changed.
   */
  private async whileRunning(update: string, params: unknown[]): Promise<number> {
    const [row] = await this.db.query<{ alive: boolean; changed: number }[]>(
      `WITH alive AS MATERIALIZED (SELECT NOT pg_try_advisory_xact_lock(${RUN_LOCK}, $1) AS yes),
       changed AS (${update} AND (SELECT yes FROM alive) RETURNING 1)
       SELECT (SELECT yes FROM alive) AS alive, (SELECT count(*) FROM changed)::int AS changed`,
      [this.runId, ...params],
    );
    if (!row.alive) {
      throw new Error(`the offer run of event ${this.eventId} lost its transaction`);
    }
    return row.changed;
  }

  /**
   * Stores the outcome of the run's asks in one statement: the offers, and their entries OFFERED, if they
   * are still WAITING; the asks of the passed entries settled, with the reason they were passed over. The
   * entries offered; an offer whose entry left meanwhile is not among them and keeps its ask: its hold is
   * the caller's to release, then settle().
   */
  async record(
    offers: Omit<OfferRecord, 'userId' | 'published'>[],
    passed: PassedEntry[],
  ): Promise<Set<string>> {
    if (offers.length === 0 && passed.length === 0) {
      return new Set();
    }
    const rows = await this.tx.query<{ id: string }[]>(
      `WITH made AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS m(source_event_id text, entry_id uuid, hold_id text,
           seat_ids text[], places jsonb, offer_expires_at timestamptz, recovered boolean)),
       offered AS (
         UPDATE waitlist_entries e
            SET status = 'OFFERED', hold_id = m.hold_id, offer_expires_at = m.offer_expires_at, offer_ask = NULL
           FROM made m WHERE e.id = m.entry_id AND e.status = 'WAITING'
         RETURNING e.id),
       offer AS (
         INSERT INTO waitlist_offers (source_event_id, entry_id, hold_id, seat_ids, places, offer_expires_at,
           recovered)
         SELECT m.source_event_id, m.entry_id, m.hold_id, m.seat_ids, m.places, m.offer_expires_at, m.recovered
           FROM made m JOIN offered o ON o.id = m.entry_id),
       passed AS (
         UPDATE waitlist_entries e
            SET offer_ask = NULL,
                skip_reason = COALESCE(p.reason, e.skip_reason),
                skipped_at = CASE WHEN p.reason IS NULL THEN e.skipped_at ELSE now() END
           FROM jsonb_to_recordset($2::jsonb) AS p(entry_id uuid, reason text)
          WHERE e.id = p.entry_id)
       SELECT id FROM offered`,
      [
        JSON.stringify(
          offers.map((o) => ({
            source_event_id: o.sourceEventId,
            entry_id: o.entryId,
            hold_id: o.holdId,
            seat_ids: o.seatIds,
            places: o.places ?? null,
            offer_expires_at: o.offerExpiresAt,
            recovered: o.recovered,
          })),
        ),
        JSON.stringify(passed.map((p) => ({ entry_id: p.entryId, reason: p.reason }))),
      ],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** The asks of these entries are settled (their holds released, or never made). */
  async settle(entryIds: string[]): Promise<void> {
    if (entryIds.length > 0) {
      await this.tx.query(`UPDATE waitlist_entries SET offer_ask = NULL WHERE id = ANY($1::uuid[])`, [
        entryIds,
      ]);
    }
  }
}
