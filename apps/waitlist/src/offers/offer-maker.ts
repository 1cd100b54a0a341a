import { Injectable, Logger } from '@nestjs/common';
import type { WaitlistOfferMadeData } from '@app/contracts';
import {
  FreedSeat,
  OfferedPlaces,
  OfferRecord,
  PassedEntry,
  QueuedEntry,
  ShowOffers,
  UnsettledAsk,
  WaitlistRepository,
} from '@app/database';
import { counter } from '@app/observability';
import type { FreedSeats } from './freed-seats';
import { isRefused, OfferHold, offerAsk, OfferHolds, OfferRefused, OfferSeats } from './offer-holds';

const offersMade = counter(
  'waitlist_offers_total',
  'Offers made from freed seats (made, replayed, recovered), lapsed ones, and holds of entries that left (declined)',
  ['outcome'],
);
const entriesSkipped = counter(
  'waitlist_entries_skipped_total',
  'Entries passed over for freed seats they fitted, by the seat API refusal of their own offer hold',
  ['reason'],
);

/** Entries read beyond the freed seats: far more than one change's seats can serve (a party is 1-10 seats). */
const QUEUE_SCAN = 200;

/**
 * Refusals about the seats or places asked for, not the entry: it was not passed over, the seats or places
 * were not there.
 */
const SEAT_REFUSALS = new Set(['SEATS_UNAVAILABLE', 'SEAT_NOT_FOUND', 'SOLD_OUT', 'AREA_NOT_FOUND']);

/**
 * An offer: what WaitlistOfferMade announces, the freed change it was made from, and whether Kafka
 * acknowledged its announcement already.
 */
export interface Offer {
  data: WaitlistOfferMadeData;
  sourceEventId: string;
  published: boolean;
}

/** An offer hold made in this run, not stored yet. */
interface Made extends Offer {
  recovered: boolean;
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
 * - every hold is asked for with an Idempotency-Key derived from the change, the entry and the ask, and the
 *   ask is written on its entry first, committed at once (ShowOffers.announce). A run that dies or fails
 *   after the seat API made holds leaves those asks behind, and the next run of the show settles them before
 *   anything else: each is asked again (the seat API answers the hold it made, or makes it now) and
 *   becomes its entry's offer while the hold is live, or is released when the entry has left. No hold the
 *   seat API made for an offer is left to run out on its own.
 *
 * Who: the queue in order (created_at, id), WAITING entries only (one open offer per entry), the first whose
 * category the freed seats have and whose party can be seated. Which seats: the freed ones when the party
 * is no larger; otherwise the seat API's best-available block of its size (seats together), which the freed
 * seats made possible or not. What the first offer leaves of the freed seats goes on to the next entries;
 * the changes of a batch are served in their order, each from the queue the ones before it left.
 *
 * Places of a general-admission area go the same way to that area's own queue (entries that name it; the
 * seats go to entries that name none): the first entries whose quantity the freed places cover, or, for
 * a larger party, its quantity when the area has that many free (places are alike: a hold of them is a
 * count); an area short of a quantity (409 SOLD_OUT) is short of any larger one too.
 *
 * One entry never holds back another: a hold the seat API refuses for that entry alone (OfferHolds: its
 * seats taken, the user's own hold or rate limit) passes the seats on to the next entry, and the entry keeps
 * its place, with the reason recorded on it for its user to read (unless the refusal was about the seats).
 * Only what would fail every ask (the seat API or PostgreSQL down) fails the show and is tried again.
 *
 * An entry that leaves while its hold is being made is LEFT when the run stores its outcome: it gets no
 * offer, its hold is released, and the seats go to the next entry with that release.
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
      const stored = await show.offersOf(changes.map((c) => c.sourceEventId));
      if (stored.length > 0) {
        offersMade.inc({ outcome: 'replayed' }, stored.length);
      }
      // a change offered already, or a second copy of one in this batch, offers nothing new; an offer
      // recovered from an earlier run's ask does not count (the change's other seats are offered still)
      const seen = new Set(stored.filter((o) => !o.recovered).map((o) => o.sourceEventId));
      const todo: FreedSeats[] = [];
      for (const change of changes) {
        if (!seen.has(change.sourceEventId)) {
          seen.add(change.sourceEventId);
          todo.push(change);
        }
      }
      const recovered = await this.settleAsks(show);
      const freedHolds = todo.flatMap((c) => (c.holdId ? [c.holdId] : []));
      if (freedHolds.length > 0) {
        // the freed holds that were offers ended unbooked
        const lapsed = await show.lapse(freedHolds);
        if (lapsed > 0) {
          offersMade.inc({ outcome: 'lapsed' }, lapsed);
        }
      }
      const made = todo.length === 0 ? [] : await this.offer(show, todo, recovered);
      return [...stored.map((r) => asOffer(eventId, r)), ...recovered, ...made];
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

  /**
   * The asks earlier runs of the show left behind, settled: a live hold of a WAITING entry becomes its
   * offer (stored here, so the changes of this run that end that hold lapse it), a hold of an entry that
   * left is released, an ask that made no hold is cleared. One the seat API did not answer (its user over
   * their rate limit) stays, and keeps its entry out of the queue until a later run settles it.
   */
  private async settleAsks(show: ShowOffers): Promise<Offer[]> {
    const asks = await show.unsettledAsks();
    const made: Made[] = [];
    const cleared: UnsettledAsk[] = [];
    const released: string[] = [];
    for (const a of asks) {
      const answer = await this.holds.ask(a.userId, show.eventId, a.entryId, a.ask);
      if (isRefused(answer)) {
        if (answer.scope === 'caller') {
          entriesSkipped.inc({ reason: answer.refused });
          this.logger.warn({ msg: 'unsettled offer ask kept', entryId: a.entryId, reason: answer.refused });
        } else {
          cleared.push(a); // it made no hold
        }
      } else if (a.status === 'LEFT') {
        await this.decline(a, answer);
        released.push(a.entryId);
      } else if (await this.holds.isActive(a.userId, answer.holdId)) {
        made.push(offerOf(a.ask.sourceEventId, show.eventId, a.entryId, a.userId, answer, true));
      } else {
        cleared.push(a); // it ended unbooked: the entry waits on
      }
    }
    await show.clearAsks(cleared);
    await show.settle(released);
    const recovered = await this.store(show, made, []);
    offersMade.inc({ outcome: 'recovered' }, recovered.length);
    return recovered;
  }

  private async offer(show: ShowOffers, changes: FreedSeats[], recovered: Offer[]): Promise<Offer[]> {
    const seatIds = [...new Set(changes.flatMap((c) => c.seatIds))];
    const seats = seatIds.length > 0 ? await show.seats(seatIds) : [];
    const places = changes.flatMap((c) => c.places ?? []);
    const queue = await show.queue(
      QUEUE_SCAN + seatIds.length + places.reduce((n, p) => n + p.quantity, 0),
      seatIds.length > 0,
      [...new Set(places.map((p) => p.area))],
    );
    // each change's seats in layout order, looked up by place rather than scanned per change; those an
    // offer recovered in this run holds are not free, nor the places such an offer took of its change
    const taken = new Set(recovered.flatMap((o) => o.data.seatIds));
    const place = new Map(seats.map((s, i) => [s.seatId, i]));
    const made: Made[] = [];
    const passed = new Map<string, string | null>();
    for (const change of changes) {
      const freed = [...new Set(change.seatIds)]
        .flatMap((id) => place.get(id) ?? [])
        .sort((a, b) => a - b)
        .map((i) => seats[i])
        .filter((s) => !taken.has(s.seatId));
      const recoveredOf = recovered.filter((o) => o.sourceEventId === change.sourceEventId);
      const freedPlaces = (change.places ?? []).map(({ area, quantity }) => ({
        area,
        quantity: recoveredOf
          .flatMap((o) => o.data.places ?? [])
          .reduce((left, p) => (p.area === area ? left - p.quantity : left), quantity),
      }));
      made.push(...(await this.offerChange(show, change, freed, freedPlaces, queue, passed)));
    }
    for (const o of made) {
      passed.delete(o.data.entryId); // passed over for one change, offered seats of a later one
    }
    const offers = await this.store(
      show,
      made,
      [...passed].map(([entryId, reason]) => ({ entryId, reason })),
    );
    offersMade.inc({ outcome: 'made' }, offers.length);
    passed.forEach((reason) => reason && entriesSkipped.inc({ reason }));
    return offers;
  }

  /**
   * Stores the offers and the passed entries; an offer whose entry left meanwhile is declined (its hold
   * released, the release freeing its seats for the next entry) and its ask settled. The offers stored.
   */
  private async store(show: ShowOffers, made: Made[], passed: PassedEntry[]): Promise<Offer[]> {
    const offered = await show.record(
      made.map((o) => ({
        sourceEventId: o.sourceEventId,
        entryId: o.data.entryId,
        holdId: o.data.holdId,
        seatIds: o.data.seatIds,
        ...(o.data.places ? { places: o.data.places } : {}),
        offerExpiresAt: o.data.offerExpiresAt,
        recovered: o.recovered,
      })),
      passed,
    );
    const left = made.filter((o) => !offered.has(o.data.entryId));
    for (const o of left) {
      await this.decline({ entryId: o.data.entryId, userId: o.data.userId }, o.data);
    }
    await show.settle(left.map((o) => o.data.entryId));
    return made.filter((o) => offered.has(o.data.entryId)).map(({ recovered: _, ...offer }) => offer);
  }

  /** The hold made for an entry that left is released: they asked for no offer. */
  private async decline(entry: Pick<UnsettledAsk, 'entryId' | 'userId'>, hold: { holdId: string }) {
    await this.holds.release(entry.userId, hold.holdId);
    offersMade.inc({ outcome: 'declined' });
    this.logger.log({
      msg: 'hold of an entry that left released',
      entryId: entry.entryId,
      holdId: hold.holdId,
    });
  }

  /**
   * One change's offers, from `queue` in order: its seats to the entries waiting for seats, its places of
   * each area to the entries of that area. The entries offered leave `queue`, and so do those that left;
   * the entries asked for and refused are put in `passed`, with the refusal's code when it was their own.
   */
  private async offerChange(
    show: ShowOffers,
    change: FreedSeats,
    freed: FreedSeat[],
    places: OfferedPlaces[],
    queue: QueuedEntry[],
    passed: Map<string, string | null>,
  ): Promise<Made[]> {
    const made: Made[] = [];
    let closed = freed.length > 0 && (await this.offerSeats(show, change, freed, queue, passed, made));
    for (const freedPlaces of places) {
      if (closed) {
        break;
      }
      closed = await this.offerPlaces(show, change, freedPlaces, queue, passed, made);
    }
    return made;
  }

  /**
   * Freed seats to the entries waiting for seats, into `made`; whether the show takes no holds (nothing
   * more can be offered).
   */
  private async offerSeats(
    show: ShowOffers,
    change: FreedSeats,
    freed: FreedSeat[],
    queue: QueuedEntry[],
    passed: Map<string, string | null>,
    made: Made[],
  ): Promise<boolean> {
    let remaining = freed;
    // a best-available block refused for one party is refused for the next party of that size and category
    const noBlock = new Set<string>();
    for (let i = 0; i < queue.length && remaining.length > 0; i++) {
      const entry = queue[i];
      if (entry.area !== null) {
        continue; // it waits for places
      }
      const fitting = remaining.filter((s) => entry.category === null || s.category === entry.category);
      const block = `${entry.quantity}:${entry.category ?? ''}`;
      if (fitting.length === 0 || (entry.quantity > fitting.length && noBlock.has(block))) {
        continue;
      }
      const seats: OfferSeats =
        entry.quantity <= fitting.length
          ? { seatIds: fitting.slice(0, entry.quantity).map((s) => s.seatId) }
          : {
              bestAvailable: {
                quantity: entry.quantity,
                ...(entry.category ? { category: entry.category } : {}),
              },
            };
      const hold = await this.askHold(show, change, entry, seats);
      if (hold === 'left') {
        queue.splice(i--, 1);
        continue;
      }
      if (isRefused(hold)) {
        passed.set(entry.id, passed.get(entry.id) ?? null);
        if (hold.scope === 'show') {
          return true;
        }
        if (hold.refused === 'SEATS_UNAVAILABLE') {
          if ('seatIds' in seats) {
            // someone else holds them already: they are not free to offer
            remaining = remaining.filter((s) => !seats.seatIds.includes(s.seatId));
          } else {
            noBlock.add(block);
          }
        } else {
          this.passedOver(change, entry, hold, passed);
        }
        continue;
      }
      remaining = remaining.filter((s) => !hold.seatIds.includes(s.seatId));
      queue.splice(i--, 1); // offered: no longer waiting for the changes after this one
      made.push(offerOf(change.sourceEventId, change.eventId, entry.id, entry.userId, hold, false));
    }
    return false;
  }

  /**
   * Freed places of one area to the entries of that area, into `made`; whether the show takes no holds.
   * An entry whose quantity the freed places cover asks for it; a larger one asks too (the area may have
   * other places free), unless the area was found short of a quantity no larger.
   */
  private async offerPlaces(
    show: ShowOffers,
    change: FreedSeats,
    freed: OfferedPlaces,
    queue: QueuedEntry[],
    passed: Map<string, string | null>,
    made: Made[],
  ): Promise<boolean> {
    let remaining = freed.quantity;
    // the smallest quantity the area was found short of
    let short = Infinity;
    for (let i = 0; i < queue.length && remaining > 0; i++) {
      const entry = queue[i];
      if (entry.area !== freed.area || entry.quantity >= short) {
        continue;
      }
      const ask = { places: [{ area: freed.area, quantity: entry.quantity }] };
      const hold = await this.askHold(show, change, entry, ask);
      if (hold === 'left') {
        queue.splice(i--, 1);
        continue;
      }
      if (isRefused(hold)) {
        passed.set(entry.id, passed.get(entry.id) ?? null);
        if (hold.scope === 'show') {
          return true;
        }
        if (hold.refused === 'SOLD_OUT') {
          // fewer than this many are free: at most one less of the freed ones is left to offer
          short = entry.quantity;
          remaining = Math.min(remaining, entry.quantity - 1);
        } else {
          this.passedOver(change, entry, hold, passed);
        }
        continue;
      }
      remaining = Math.max(0, remaining - entry.quantity);
      queue.splice(i--, 1);
      made.push(offerOf(change.sourceEventId, change.eventId, entry.id, entry.userId, hold, false));
    }
    return false;
  }

  /** A refusal of the entry's own (its user's rate or hold limit): it keeps its place, what was freed goes on. */
  private passedOver(
    change: FreedSeats,
    entry: QueuedEntry,
    hold: OfferRefused,
    passed: Map<string, string | null>,
  ): void {
    if (SEAT_REFUSALS.has(hold.refused)) {
      return;
    }
    passed.set(entry.id, hold.refused);
    this.logger.warn({
      msg: 'waiting-list entry passed over',
      entryId: entry.id,
      userId: entry.userId,
      eventId: change.eventId,
      reason: hold.refused,
    });
  }

  /**
   * Announces the ask on the entry, then sends it: 'left' when the entry is no longer WAITING (nothing
   * asked). A show that caps its holds below WAITLIST_OFFER_TTL_SECONDS gets asked again for its longest
   * hold rather than none (another ask, so announced and keyed on its own).
   */
  private async askHold(
    show: ShowOffers,
    change: FreedSeats,
    entry: QueuedEntry,
    seats: OfferSeats,
  ): Promise<OfferHold | OfferRefused | 'left'> {
    let ttlSeconds = this.holds.ttlSeconds;
    for (;;) {
      const ask = offerAsk(change.sourceEventId, seats, ttlSeconds);
      if (!(await show.announce(entry.id, ask))) {
        return 'left';
      }
      const answer = await this.holds.ask(entry.userId, change.eventId, entry.id, ask);
      if (!isRefused(answer) || answer.ttlMaxSeconds === undefined || answer.ttlMaxSeconds >= ttlSeconds) {
        return answer;
      }
      ttlSeconds = answer.ttlMaxSeconds;
    }
  }
}

function offerOf(
  sourceEventId: string,
  eventId: string,
  entryId: string,
  userId: string,
  hold: OfferHold,
  recovered: boolean,
): Made {
  return {
    sourceEventId,
    published: false,
    recovered,
    data: {
      eventId,
      entryId,
      userId,
      holdId: hold.holdId,
      seatIds: hold.seatIds,
      ...(hold.places && hold.places.length > 0 ? { places: hold.places } : {}),
      offerExpiresAt: new Date(hold.expiresAt).toISOString(),
    },
  };
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
      ...(r.places ? { places: r.places } : {}),
      offerExpiresAt: r.offerExpiresAt,
    },
  };
}
