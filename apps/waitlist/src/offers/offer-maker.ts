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

/** Entries read beyond the freed seats: far more than one change's seats can serve (a party is 1-10 seats). */
const QUEUE_SCAN = 200;

/** Refusals that hold for every entry of the show: nobody can be offered anything now. */
const SHOW_CLOSED = new Set(['EVENT_ENDED', 'SALES_CLOSED', 'EVENT_CANCELLED', 'EVENT_NOT_FOUND']);

interface QueuedEntry {
  id: string;
  user_id: string;
  quantity: number;
  category: string | null;
}

interface FreedSeat {
  seat_id: string;
  category: string;
}

/**
 * An offer: what WaitlistOfferMade announces, the freed change it was made from, and whether Kafka
 * acknowledged its announcement already.
 */
export interface Offer {
  data: WaitlistOfferMadeData;
  sourceEventId: string;
  published: boolean;
}

/**
 * Turns freed seats into offers, exactly once in effect per freed change:
 *
 * - one transaction per show and batch of its changes, under a transaction-scoped advisory lock on the
 *   show: two consumers that get the same changes (a rebalance hands a partition over while its old owner
 *   still works) take turns, and the second sees the first's offers;
 * - a change's offers are rows keyed by (its CloudEvent id, entry), inserted in the transaction that marks
 *   the entries OFFERED: a change read again (redelivery, a consumer killed before its offset commit) finds
 *   them and offers nothing new, it only hands the same offers back to be announced;
 * - the hold is made before the transaction commits, with an Idempotency-Key derived from the change and
 *   the entry (OfferHolds): a consumer killed in between left a hold but no offer, and the redelivery, which
 *   meets the same queue, gets that same hold back.
 *
 * Who: the queue in order (created_at, id), WAITING entries only (one open offer per entry), the first whose
 * category the freed seats have and whose party can be seated. Which seats: the freed ones when the party
 * is no larger; otherwise the seat API's best-available block of its size (seats together), which the freed
 * seats made possible or not. What the first offer leaves of the freed seats goes on to the next entries;
 * the changes of a batch are served in their order, each from the queue the ones before it left.
 */
@Injectable()
export class OfferMaker {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly holds: OfferHolds,
  ) {}

  /** Offers the seats one show's changes freed (in their order), in one transaction. */
  async offerFreed(changes: FreedSeats[]): Promise<Offer[]> {
    const eventId = changes[0].eventId;
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`waitlist:${eventId}`]);
      const done = await this.offersOf(tx, eventId, changes);
      if (done.length > 0) {
        offersMade.inc({ outcome: 'replayed' }, done.length);
      }
      // a change already offered, or a second copy of one in this batch, offers nothing new
      const seen = new Set(done.map((o) => o.sourceEventId));
      const todo: FreedSeats[] = [];
      for (const change of changes) {
        if (!seen.has(change.sourceEventId)) {
          seen.add(change.sourceEventId);
          todo.push(change);
        }
      }
      const freedHolds = todo.flatMap((c) => (c.holdId ? [c.holdId] : []));
      if (freedHolds.length > 0) {
        // the freed holds that were offers ended unbooked (a declined offer's entry is LEFT already)
        const lapsed = await tx.query<[unknown[], number]>(
          `UPDATE waitlist_entries SET status = 'LAPSED' WHERE hold_id = ANY($1::text[]) AND status = 'OFFERED'`,
          [freedHolds],
        );
        if (lapsed[1] > 0) {
          offersMade.inc({ outcome: 'lapsed' }, lapsed[1]);
        }
      }
      return todo.length === 0 ? done : [...done, ...(await this.offer(tx, eventId, todo))];
    });
  }

  /** The offers' holds were booked: their entries accepted them. */
  async accepted(holdIds: string[]): Promise<void> {
    await this.db.query(
      `UPDATE waitlist_entries SET status = 'ACCEPTED'
        WHERE hold_id = ANY($1::text[]) AND status IN ('OFFERED', 'LAPSED')`,
      [holdIds],
    );
  }

  /** Records that Kafka has the offers' WaitlistOfferMade, so a redelivery does not announce them again. */
  async published(offers: Offer[]): Promise<void> {
    await this.db.query(
      `UPDATE waitlist_offers SET published_at = now()
        WHERE (source_event_id, entry_id) IN (SELECT * FROM unnest($1::text[], $2::uuid[]))`,
      [offers.map((o) => o.sourceEventId), offers.map((o) => o.data.entryId)],
    );
  }

  private async offer(tx: EntityManager, eventId: string, changes: FreedSeats[]): Promise<Offer[]> {
    const seatIds = [...new Set(changes.flatMap((c) => c.seatIds))];
    const seats = await tx.query<FreedSeat[]>(
      `SELECT seat_id, category FROM seats WHERE event_id = $1 AND seat_id = ANY($2::text[]) ORDER BY position`,
      [eventId, seatIds],
    );
    const queue = await tx.query<QueuedEntry[]>(
      `SELECT id, user_id, quantity, category FROM waitlist_entries
        WHERE event_id = $1 AND status = 'WAITING' ORDER BY created_at, id LIMIT $2`,
      [eventId, QUEUE_SCAN + seatIds.length],
    );
    // each change's seats in layout order, looked up by place rather than scanned per change
    const place = new Map(seats.map((s, i) => [s.seat_id, i]));
    const offers: Offer[] = [];
    for (const change of changes) {
      const freed = [...new Set(change.seatIds)]
        .flatMap((id) => place.get(id) ?? [])
        .sort((a, b) => a - b)
        .map((i) => seats[i]);
      offers.push(...(await this.offerChange(change, freed, queue)));
    }
    if (offers.length > 0) {
      // the offer rows and their entries' OFFERED in one statement
      await tx.query(
        `WITH made AS (
           SELECT * FROM jsonb_to_recordset($1::jsonb) AS m(source_event_id text, entry_id uuid, hold_id text,
             seat_ids text[], offer_expires_at timestamptz)),
         offer AS (
           INSERT INTO waitlist_offers (source_event_id, entry_id, hold_id, seat_ids, offer_expires_at)
           SELECT source_event_id, entry_id, hold_id, seat_ids, offer_expires_at FROM made)
         UPDATE waitlist_entries e SET status = 'OFFERED', hold_id = m.hold_id, offer_expires_at = m.offer_expires_at
           FROM made m WHERE e.id = m.entry_id`,
        [
          JSON.stringify(
            offers.map((o) => ({
              source_event_id: o.sourceEventId,
              entry_id: o.data.entryId,
              hold_id: o.data.holdId,
              seat_ids: o.data.seatIds,
              offer_expires_at: o.data.offerExpiresAt,
            })),
          ),
        ],
      );
      offersMade.inc({ outcome: 'made' }, offers.length);
    }
    return offers;
  }

  /** One change's offers, from `queue` in order; the entries offered leave `queue`. */
  private async offerChange(change: FreedSeats, freed: FreedSeat[], queue: QueuedEntry[]): Promise<Offer[]> {
    let remaining = freed;
    const offers: Offer[] = [];
    // a best-available block refused for one party is refused for the next party of that size and category
    const noBlock = new Set<string>();
    for (let i = 0; i < queue.length && remaining.length > 0; i++) {
      const entry = queue[i];
      const fitting = remaining.filter((s) => entry.category === null || s.category === entry.category);
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
      const hold = await this.holds.hold(entry.user_id, change.eventId, ask, {
        sourceEventId: change.sourceEventId,
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
      queue.splice(i--, 1); // offered: no longer waiting for the changes after this one
      offers.push({
        sourceEventId: change.sourceEventId,
        published: false,
        data: {
          eventId: change.eventId,
          entryId: entry.id,
          userId: entry.user_id,
          holdId: hold.holdId,
          seatIds: hold.seatIds,
          offerExpiresAt: new Date(hold.expiresAt).toISOString(),
        },
      });
    }
    return offers;
  }

  /** The offers already made from these changes (committed by an earlier delivery of them). */
  private async offersOf(tx: EntityManager, eventId: string, changes: FreedSeats[]): Promise<Offer[]> {
    const rows = await tx.query<
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
      [changes.map((c) => c.sourceEventId)],
    );
    return rows.map((r) => ({
      sourceEventId: r.source_event_id,
      published: r.published_at !== null,
      data: {
        eventId,
        entryId: r.entry_id,
        userId: r.user_id,
        holdId: r.hold_id,
        seatIds: r.seat_ids,
        offerExpiresAt: r.offer_expires_at.toISOString(),
      },
    }));
  }
}
