import { Injectable } from '@nestjs/common';
import { EventPolicyService } from '../../catalogue/policy/event-policy.service';
import { EventAdminStore, LiveHold } from '../../hold-store';
import { HoldsService } from '../holds.service';
import { CancelledEventView } from './cancelled-event.view';

/** Releases of one cancel run side by side at most (each is a seat-locked release, one or two round trips). */
const PARALLEL_RELEASES = 16;

/**
 * Cancelling an event: first no new hold (the event's policy becomes CANCELLED, its version raised in
 * Redis before anything else, so every instance refuses new holds from then on), then every live hold
 * released exactly as its owner's DELETE would be (seat lock, fencing, the seat-map change log; a release
 * emits no SeatExpired, a lapsed hold met on the way is expired with its SeatExpired as anywhere else).
 *
 * A confirm racing the cancel: whichever takes the hold's seat lock first wins. Confirmed first, the hold
 * stays booked (counted in bookedHolds) in PostgreSQL and Redis alike; released first, the confirm finds
 * the hold RELEASED (409 HOLD_NOT_ACTIVE) and books nothing. A hold being confirmed is decided from
 * PostgreSQL before its release (as for any release), so the two stores always agree.
 *
 * If a release fails (Redis or PostgreSQL not answering, a seat lock busy), the cancel answers that error:
 * the event stays cancelled (no new holds), and calling cancel again releases what is still live.
 */
@Injectable()
export class EventCancellation {
  constructor(
    private readonly policies: EventPolicyService,
    private readonly eventHolds: EventAdminStore,
    private readonly holds: HoldsService,
  ) {}

  async cancel(eventId: string): Promise<CancelledEventView> {
    await this.policies.cancel(eventId);
    const done = { released: 0, booked: 0 };
    for await (const page of this.eventHolds.liveHolds(eventId)) {
      await this.releaseAll(eventId, page, done);
    }
    return { eventId, sales: 'CANCELLED', releasedHolds: done.released, bookedHolds: done.booked };
  }

  private async releaseAll(eventId: string, page: LiveHold[], done: { released: number; booked: number }) {
    const queue = [...page];
    const worker = async () => {
      for (let h = queue.shift(); h; h = queue.shift()) {
        const outcome = await this.holds.releaseForCancel({ eventId, ...h });
        if (outcome === 'released') {
          done.released++;
        } else if (outcome === 'booked') {
          done.booked++;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_RELEASES, queue.length) }, worker));
  }
}
