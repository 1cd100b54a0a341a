import { Injectable, Logger } from '@nestjs/common';
import { EventPolicyService } from '../../catalogue/policy/event-policy.service';
import { EventAdminStore, LiveHold } from '../../hold-store';
import { BookingRepository } from '../booking.repository';
import { bookingUnavailable } from '../hold-errors';
import { HoldsService } from '../holds.service';
import { CancelledEventView } from './cancelled-event.view';

/** Releases of one cancel run side by side at most (each is a seat-locked release, one or two round trips). */
const PARALLEL_RELEASES = 16;
/** How long counting the event's bookings may wait for PostgreSQL (an admin call: no seat lock is held). */
const COUNT_TIMEOUT_MS = 2000;

/**
 * Cancelling an event: first no new hold (the event's policy becomes CANCELLED, its version raised in
 * Redis before anything else, so every instance refuses new holds from then on), then every live hold
 * released exactly as its owner's DELETE would be (seat lock, fencing, the seat-map change log; a release
 * emits no SeatExpired, a lapsed hold met on the way is expired with its SeatExpired as anywhere else).
 *
 * A confirm racing the cancel: whichever takes the hold's seat lock first wins. Confirmed first, the hold
 * stays booked in PostgreSQL and Redis alike; released first, the confirm finds the hold RELEASED (409
 * HOLD_NOT_ACTIVE) and books nothing. A hold being confirmed is decided from PostgreSQL before its release
 * (as for any release), so the two stores always agree.
 *
 * bookedHolds is the event's booked holds, counted in PostgreSQL once every live hold is decided, not the
 * booked holds the releases met: a racing confirm may finish before the live holds are listed (its hold
 * is no longer live, so no release meets it), and the caller cannot tell that apart from a confirm that
 * finished while the holds were being released. Once every listed hold is released or booked, no hold of
 * the event can become booked (none is made once the policy changed), so the count is final until staff
 * cancel one of its bookings; calling cancel again answers it again.
 *
 * If a release fails (Redis or PostgreSQL not answering, a seat lock busy), the cancel answers that error:
 * the event stays cancelled (no new holds), and calling cancel again releases what is still live.
 */
@Injectable()
export class EventCancellation {
  private readonly logger = new Logger('Catalogue');

  constructor(
    private readonly policies: EventPolicyService,
    private readonly eventHolds: EventAdminStore,
    private readonly holds: HoldsService,
    private readonly bookings: BookingRepository,
  ) {}

  async cancel(eventId: string): Promise<CancelledEventView> {
    await this.policies.cancel(eventId);
    const done = { released: 0 };
    for await (const page of this.eventHolds.liveHolds(eventId)) {
      await this.releaseAll(eventId, page, done);
    }
    return {
      eventId,
      sales: 'CANCELLED',
      releasedHolds: done.released,
      bookedHolds: await this.booked(eventId),
    };
  }

  private async booked(eventId: string): Promise<number> {
    try {
      return await this.bookings.countConfirmed(eventId, COUNT_TIMEOUT_MS);
    } catch (e) {
      this.logger.warn(`event ${eventId}: cancelled, its bookings not counted: ${String(e)}`);
      throw bookingUnavailable(
        'The event is cancelled and its live holds released, but the booking store does not answer the count of its bookings. Call cancel again',
      );
    }
  }

  private async releaseAll(eventId: string, page: LiveHold[], done: { released: number }) {
    const queue = [...page];
    const worker = async () => {
      for (let h = queue.shift(); h; h = queue.shift()) {
        // 'booked' (a confirm took the seat lock first) is in the count of bookings; 'ended' is in neither
        if ((await this.holds.releaseForCancel({ eventId, ...h })) === 'released') {
          done.released++;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_RELEASES, queue.length) }, worker));
  }
}
