import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { WaitlistOfferMadeData } from '@app/contracts';
import { counter } from '@app/observability';
import type { FreedSeats } from './freed-seats';
import { isRefused, OfferHolds, OfferSeats } from './offer-holds';

const offersMade = counter('waitlist_offers_total', 'Offers made from freed seats, and lapsed ones', [
  'outcome',
]);

/** Entries read per freed change: far more than one change's seats can serve (a party is 1-10 seats). */
const QUEUE_SCAN = 200;

/** Refusals that hold for every entry of the show: nobody can be offered anything now. */
const SHOW_CLOSED = new Set(['EVENT_ENDED', 'SALES_CLOSED', 'EVENT_CANCELLED', 'EVENT_NOT_FOUND']);

interface QueuedEntry {
  id: string;
  user_id: string;
  quantity: number;
  category: string | null;
}

/** An offer of a change, as WaitlistOfferMade announces it; `published`: Kafka acknowledged it already. */
export interface Offer extends WaitlistOfferMadeData {
  published: boolean;
}

/**
 * Turns freed seats into offers, exactly once in effect per freed change:
 *
 * - one transaction per change, under a transaction-scoped advisory lock on the show: two consumers that
 *   get the same change (a rebalance hands a partition over while its old owner still works) take turns,
 *   and the second sees the first's offers;
 * - the change's offers are rows keyed by (its CloudEvent id, entry), inserted in the transaction that
 *   marks the entries OFFERED: a change read again (redelivery, a consumer killed before its offset commit)
 *   finds them and offers nothing new, it only hands the same offers back to be announced;
 * - the hold is made before the transaction commits, with an Idempotency-Key derived from the change and
 *   the entry (OfferHolds): a consumer killed in between left a hold but no offer, and the redelivery, which
 *   meets the same queue, gets that same hold back.
 *
 * Who: the queue in order (created_at, id), WAITING entries only (one open offer per entry), the first whose
 * category the freed seats have and whose party can be seated. Which seats: the freed ones when the party
 * is no larger; otherwise the seat API's best-available block of its size (seats together), which the freed
 * seats made possible or not. What the first offer leaves of the freed seats goes on to the next entries.
 */
@Injectable()
export class OfferMaker {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly holds: OfferHolds,
  ) {}

  async offerFreed(freed: FreedSeats): Promise<Offer[]> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`waitlist:${freed.eventId}`]);
      const done = await this.offersOf(tx, freed);
      if (done.length > 0) {
        offersMade.inc({ outcome: 'replayed' }, done.length);
        return done;
      }
      if (freed.holdId) {
        // the freed hold was an offer: it ended unbooked (a declined offer's entry is LEFT already)
        const lapsed = await tx.query<[unknown[], number]>(
          `UPDATE waitlist_entries SET status = 'LAPSED' WHERE hold_id = $1 AND status = 'OFFERED'`,
          [freed.holdId],
        );
        if (lapsed[1] > 0) {
          offersMade.inc({ outcome: 'lapsed' });
        }
      }
      return this.offer(tx, freed);
    });
  }

  /** The offer's hold was booked: the entry accepted it. */
  async accepted(holdId: string): Promise<void> {
    await this.db.query(
      `UPDATE waitlist_entries SET status = 'ACCEPTED' WHERE hold_id = $1 AND status IN ('OFFERED', 'LAPSED')`,
      [holdId],
    );
  }

  /** Records that Kafka has the offer's WaitlistOfferMade, so a redelivery does not announce it again. */
  async published(offers: Offer[], sourceEventId: string): Promise<void> {
    await this.db.query(
      `UPDATE waitlist_offers SET published_at = now() WHERE source_event_id = $1 AND entry_id = ANY($2::uuid[])`,
      [sourceEventId, offers.map((o) => o.entryId)],
    );
  }

  private async offer(tx: EntityManager, freed: FreedSeats): Promise<Offer[]> {
    let remaining = await tx.query<{ seat_id: string; category: string }[]>(
      `SELECT seat_id, category FROM seats WHERE event_id = $1 AND seat_id = ANY($2::text[]) ORDER BY position`,
      [freed.eventId, freed.seatIds],
    );
    const queue = await tx.query<QueuedEntry[]>(
      `SELECT id, user_id, quantity, category FROM waitlist_entries
        WHERE event_id = $1 AND status = 'WAITING' ORDER BY created_at, id LIMIT $2`,
      [freed.eventId, QUEUE_SCAN],
    );
    const offers: Offer[] = [];
    // a best-available block refused for one party is refused for the next party of that size and category
    const noBlock = new Set<string>();
    for (const entry of queue) {
      const fitting = remaining.filter((s) => entry.category === null || s.category === entry.category);
      if (remaining.length === 0) {
        break;
      }
      const block = `${entry.quantity}:${entry.category ?? ''}`;
      if (fitting.length === 0 || (entry.quantity > fitting.length && noBlock.has(block))) {
        continue;
      }
      const ask: OfferSeats =
        entry.quantity <= fitting.length
          ? { seatIds: fitting.slice(0, entry.quantity).map((s) => s.seat_id) }
          : {
              bestAvailable: {
                quantity: entry.quantity,
                ...(entry.category ? { category: entry.category } : {}),
              },
            };
      const hold = await this.holds.hold(entry.user_id, freed.eventId, ask, {
        sourceEventId: freed.sourceEventId,
        entryId: entry.id,
      });
      if (isRefused(hold)) {
        if (SHOW_CLOSED.has(hold.refused)) {
          break;
        }
        if ('seatIds' in ask && hold.refused === 'SEATS_UNAVAILABLE') {
          // someone else holds them already: they are not free to offer
          remaining = remaining.filter((s) => !ask.seatIds.includes(s.seat_id));
        } else if ('bestAvailable' in ask) {
          noBlock.add(block);
        }
        continue;
      }
      remaining = remaining.filter((s) => !hold.seatIds.includes(s.seat_id));
      // the offer row and its entry's OFFERED in one statement: a round trip fewer per offer, where a burst
      // of freed seats spends most of its time
      await tx.query(
        `WITH offer AS (
           INSERT INTO waitlist_offers (source_event_id, entry_id, hold_id, seat_ids, offer_expires_at)
           VALUES ($1, $2, $3, $4, $5))
         UPDATE waitlist_entries SET status = 'OFFERED', hold_id = $3, offer_expires_at = $5 WHERE id = $2`,
        [freed.sourceEventId, entry.id, hold.holdId, hold.seatIds, hold.expiresAt],
      );
      offersMade.inc({ outcome: 'made' });
      offers.push({
        eventId: freed.eventId,
        entryId: entry.id,
        userId: entry.user_id,
        holdId: hold.holdId,
        seatIds: hold.seatIds,
        offerExpiresAt: new Date(hold.expiresAt).toISOString(),
        published: false,
      });
    }
    return offers;
  }

  private async offersOf(tx: EntityManager, freed: FreedSeats): Promise<Offer[]> {
    const rows = await tx.query<
      {
        entry_id: string;
        user_id: string;
        hold_id: string;
        seat_ids: string[];
        offer_expires_at: Date;
        published_at: Date | null;
      }[]
    >(
      `SELECT o.entry_id, e.user_id, o.hold_id, o.seat_ids, o.offer_expires_at, o.published_at
         FROM waitlist_offers o JOIN waitlist_entries e ON e.id = o.entry_id
        WHERE o.source_event_id = $1 ORDER BY o.created_at`,
      [freed.sourceEventId],
    );
    return rows.map((r) => ({
      eventId: freed.eventId,
      entryId: r.entry_id,
      userId: r.user_id,
      holdId: r.hold_id,
      seatIds: r.seat_ids,
      offerExpiresAt: r.offer_expires_at.toISOString(),
      published: r.published_at !== null,
    }));
  }
}
