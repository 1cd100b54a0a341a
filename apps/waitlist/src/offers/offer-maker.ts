import type { WaitlistOfferMadeData } from '@app/contracts';
import { Injectable, Logger } from '@nestjs/common';
import { FreedSeat, OfferRecord, QueuedEntry, ShowOffers, WaitlistRepository } from '@app/database';
import { counter } from '@app/observability';
import type { FreedSeats } from './freed-seats';
import { isRefused, OfferHolds, OfferSeats } from './offer-holds';

const offersMade = counter('waitlist_offers_total', 'Offers made from freed seats, and lapsed ones', [
  'outcome',
]);
const entriesSkipped = counter(
  'waitlist_entries_skipped_total',
  'Entries passed over for freed seats they fitted, by the seat API refusal of their own offer hold',
  ['reason'],
);

/** Entries read beyond the freed seats: far more than one change's seats can serve (a party is 1-10 seats). */
const QUEUE_SCAN = 200;

/** Refusals about the seats asked for, not the entry: it was not passed over, the seats were not there. */
const SEAT_REFUSALS = new Set(['SEATS_UNAVAILABLE', 'SEAT_NOT_FOUND']);

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
 *   show (WaitlistRepository.offering): two consumers that get the same changes (a rebalance hands a
 *   partition over while its old owner still works) take turns, and the second sees the first's offers;
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
 *
 * One entry never holds back another: a hold the seat API refuses for that entry alone (OfferHolds: its
 * seats taken, the user's own hold or rate limit) passes the seats on to the next entry, and the entry keeps
 * its place, with the reason recorded on it for its user to read (unless the refusal was about the seats).
 * Only what would fail every ask (the seat API or PostgreSQL down) fails the show and is tried again.
 */
@Injectable()
export class OfferMaker {
  private readonly logger = new Logger('OfferMaker');

  constructor(
    private readonly waitlist: WaitlistRepository,
    private readonly holds: OfferHolds,
  ) {}

  /** Offers the seats one show's changes freed (in their order), in one transaction. */
  async offerFreed(changes: FreedSeats[]): Promise<Offer[]> {
    const eventId = changes[0].eventId;
    return this.waitlist.offering(eventId, async (show) => {
      const done = (await show.offersOf(changes.map((c) => c.sourceEventId))).map((r) => asOffer(eventId, r));
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
        // the freed holds that were offers ended unbooked
        const lapsed = await show.lapse(freedHolds);
        if (lapsed > 0) {
          offersMade.inc({ outcome: 'lapsed' }, lapsed);
        }
      }
      return todo.length === 0 ? done : [...done, ...(await this.offer(show, todo))];
    });
  }

  /** The offers' holds were booked: their entries accepted them. */
  accepted(holdIds: string[]): Promise<void> {
    return this.waitlist.accepted(holdIds);
  }

  /** Records that Kafka has the offers' WaitlistOfferMade, so a redelivery does not announce them again. */
  published(offers: Offer[]): Promise<void> {
    return this.waitlist.published(
      offers.map((o) => ({ sourceEventId: o.sourceEventId, entryId: o.data.entryId })),
    );
  }

  private async offer(show: ShowOffers, changes: FreedSeats[]): Promise<Offer[]> {
    const seatIds = [...new Set(changes.flatMap((c) => c.seatIds))];
    const seats = await show.seats(seatIds);
    const queue = await show.queue(QUEUE_SCAN + seatIds.length);
    // each change's seats in layout order, looked up by place rather than scanned per change
    const place = new Map(seats.map((s, i) => [s.seatId, i]));
    const offers: Offer[] = [];
    const skipped = new Map<string, string>();
    for (const change of changes) {
      const freed = [...new Set(change.seatIds)]
        .flatMap((id) => place.get(id) ?? [])
        .sort((a, b) => a - b)
        .map((i) => seats[i]);
      offers.push(...(await this.offerChange(change, freed, queue, skipped)));
    }
    for (const o of offers) {
      skipped.delete(o.data.entryId); // passed over for one change, offered seats of a later one
    }
    // the offer rows, their entries' OFFERED and the skipped entries' reasons in one statement
    await show.record(
      offers.map((o) => ({
        sourceEventId: o.sourceEventId,
        entryId: o.data.entryId,
        holdId: o.data.holdId,
        seatIds: o.data.seatIds,
        offerExpiresAt: o.data.offerExpiresAt,
      })),
      [...skipped].map(([entryId, reason]) => ({ entryId, reason })),
    );
    offersMade.inc({ outcome: 'made' }, offers.length);
    skipped.forEach((reason) => entriesSkipped.inc({ reason }));
    return offers;
  }

  /**
   * One change's offers, from `queue` in order; the entries offered leave `queue`, the entries passed over
   * for a refusal of their own are put in `skipped` with its code.
   */
  private async offerChange(
    change: FreedSeats,
    freed: FreedSeat[],
    queue: QueuedEntry[],
    skipped: Map<string, string>,
  ): Promise<Offer[]> {
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
          ? { seatIds: fitting.slice(0, entry.quantity).map((s) => s.seatId) }
          : {
              bestAvailable: {
                quantity: entry.quantity,
                ...(entry.category ? { category: entry.category } : {}),
              },
            };
      const hold = await this.holds.hold(entry.userId, change.eventId, ask, {
        sourceEventId: change.sourceEventId,
        entryId: entry.id,
      });
      if (isRefused(hold)) {
        if (hold.scope === 'show') {
          break;
        }
        if (hold.refused === 'SEATS_UNAVAILABLE') {
          if ('seatIds' in ask) {
            // someone else holds them already: they are not free to offer
            remaining = remaining.filter((s) => !ask.seatIds.includes(s.seatId));
          } else {
            noBlock.add(block);
          }
        } else if (!SEAT_REFUSALS.has(hold.refused)) {
          // the entry's own refusal (its user's rate or hold limit): it keeps its place, the seats go on
          skipped.set(entry.id, hold.refused);
          this.logger.warn({
            msg: 'waiting-list entry passed over',
            entryId: entry.id,
            userId: entry.userId,
            eventId: change.eventId,
            reason: hold.refused,
          });
        }
        continue;
      }
      remaining = remaining.filter((s) => !hold.seatIds.includes(s.seatId));
      queue.splice(i--, 1); // offered: no longer waiting for the changes after this one
      offers.push({
        sourceEventId: change.sourceEventId,
        published: false,
        data: {
          eventId: change.eventId,
          entryId: entry.id,
          userId: entry.userId,
          holdId: hold.holdId,
          seatIds: hold.seatIds,
          offerExpiresAt: new Date(hold.expiresAt).toISOString(),
        },
      });
    }
    return offers;
  }
}

/** An offer as WaitlistOfferMade announces it. */
function asOffer(eventId: string, r: OfferRecord): Offer {
  return {
    sourceEventId: r.sourceEventId,
    published: r.published,
    data: {
      eventId,
      entryId: r.entryId,
      userId: r.userId,
      holdId: r.holdId,
      seatIds: r.seatIds,
      offerExpiresAt: r.offerExpiresAt,
    },
  };
}
