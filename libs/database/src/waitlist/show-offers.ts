import type { EntityManager } from 'typeorm';

/** An offer as PostgreSQL records it: the freed change it was made from and the entry it went to. */
export interface OfferRecord {
  sourceEventId: string;
  entryId: string;
  userId: string;
  holdId: string;
  seatIds: string[];
  offerExpiresAt: string;
  /** Kafka acknowledged its WaitlistOfferMade already. */
  published: boolean;
}

/** A WAITING entry, as the queue is read. */
export interface QueuedEntry {
  id: string;
  userId: string;
  quantity: number;
  category: string | null;
}

/** A freed seat, as an offer needs it. */
export interface FreedSeat {
  seatId: string;
  category: string;
}

/**
 * The statements of one show's offer transaction (WaitlistRepository.offering): every one runs in it, under
 * its lock on the show.
 */
export class ShowOffers {
  constructor(
    private readonly tx: EntityManager,
    readonly eventId: string,
  ) {}

  /** The offers already made from these changes (committed by an earlier delivery of them), oldest first. */
  async offersOf(sourceEventIds: string[]): Promise<OfferRecord[]> {
    const rows = await this.tx.query<
      {
        source_event_id: string;
        entry_id: string;
        user_id: string;
        hold_id: string;
        seat_ids: string[];
        offer_expires_at: Date;
        published_at: Date | null;
      }[]
    >(
      `SELECT o.source_event_id, o.entry_id, e.user_id, o.hold_id, o.seat_ids, o.offer_expires_at, o.published_at
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
      offerExpiresAt: r.offer_expires_at.toISOString(),
      published: r.published_at !== null,
    }));
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

  /** The first `limit` WAITING entries of the show, first come first served. */
  async queue(limit: number): Promise<QueuedEntry[]> {
    const rows = await this.tx.query<
      { id: string; user_id: string; quantity: number; category: string | null }[]
    >(
      `SELECT id, user_id, quantity, category FROM waitlist_entries
        WHERE event_id = $1 AND status = 'WAITING' ORDER BY created_at, id LIMIT $2`,
      [this.eventId, limit],
    );
    return rows.map((r) => ({ id: r.id, userId: r.user_id, quantity: r.quantity, category: r.category }));
  }

  /**
   * Stores the offers and marks their entries OFFERED, and records why the skipped entries were passed over,
   * in one statement.
   */
  async record(
    offers: Omit<OfferRecord, 'userId' | 'published'>[],
    skipped: { entryId: string; reason: string }[],
  ): Promise<void> {
    if (offers.length === 0 && skipped.length === 0) {
      return;
    }
    await this.tx.query(
      `WITH made AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS m(source_event_id text, entry_id uuid, hold_id text,
           seat_ids text[], offer_expires_at timestamptz)),
       offer AS (
         INSERT INTO waitlist_offers (source_event_id, entry_id, hold_id, seat_ids, offer_expires_at)
         SELECT source_event_id, entry_id, hold_id, seat_ids, offer_expires_at FROM made),
       passed AS (
         UPDATE waitlist_entries e SET skip_reason = s.reason, skipped_at = now()
           FROM jsonb_to_recordset($2::jsonb) AS s(entry_id uuid, reason text)
          WHERE e.id = s.entry_id AND e.status = 'WAITING')
       UPDATE waitlist_entries e SET status = 'OFFERED', hold_id = m.hold_id, offer_expires_at = m.offer_expires_at
         FROM made m WHERE e.id = m.entry_id`,
      [
        JSON.stringify(
          offers.map((o) => ({
            source_event_id: o.sourceEventId,
            entry_id: o.entryId,
            hold_id: o.holdId,
            seat_ids: o.seatIds,
            offer_expires_at: o.offerExpiresAt,
          })),
        ),
        JSON.stringify(skipped.map((s) => ({ entry_id: s.entryId, reason: s.reason }))),
      ],
    );
  }
}
