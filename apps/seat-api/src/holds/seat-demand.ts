import { Injectable } from '@nestjs/common';

/** Weight of the newest outcome in an event's average (about the last 16 hold attempts count). */
const ALPHA = 1 / 16;
/** Above this share of recent attempts refused as taken, an event is in a rush ... */
const RUSH_ABOVE = 0.5;
/** ... until the share falls below this (apart, so an event near the line does not flip every request). */
const CALM_BELOW = 0.25;
/** Events remembered; the least recently seen is forgotten first (an event no one holds on needs none). */
const MAX_EVENTS = 10_000;

/**
 * Which events are in a rush (a flash sale) right now, judged by how this instance's recent hold attempts
 * on each ended: taken (409 SEATS_UNAVAILABLE) or not. In a rush most attempts ask for seats that are
 * already held, and taking the seat lock to learn that costs two commands (lock, then the hold script,
 * which unlocks: one pipelined round trip, but two scripts of Redis CPU); a lock-free read of the seats
 * answers those with one read-only script (HoldsService.hold). Outside a rush the read would be a third
 * command for nothing, so the uncontended hold stays lock, hold script.
 *
 * Per instance and in memory: instances behind a balancer see the same mix, and a wrong guess costs one
 * read (a rush missed) or saves none (a calm event pre-checked), never a wrong answer.
 */
@Injectable()
export class SeatDemand {
  /** eventId -> moving average of "refused as taken" (1) vs "anything else" (0); Map order = recency. */
  private readonly takenShare = new Map<string, { share: number; rush: boolean }>();
  /** The event recorded last (the map's last entry), while it is there. */
  private newest?: string;

  isRush(eventId: string): boolean {
    return this.takenShare.get(eventId)?.rush ?? false;
  }

  /** One hold attempt on the event ended: its seats were taken (409) or not (held, or refused otherwise). */
  record(eventId: string, taken: boolean): void {
    const before = this.takenShare.get(eventId);
    const share = (before?.share ?? 0) + ALPHA * ((taken ? 1 : 0) - (before?.share ?? 0));
    const rush = share > RUSH_ABOVE || (before !== undefined && before.rush && share >= CALM_BELOW);
    if (before !== undefined) {
      before.share = share;
      before.rush = rush;
      if (eventId === this.newest) {
        return; // already last: a run of attempts on one event moves nothing
      }
      this.takenShare.delete(eventId); // re-inserted last: the map's first entry is the least recent
      this.takenShare.set(eventId, before);
    } else {
      this.takenShare.set(eventId, { share, rush });
      if (this.takenShare.size > MAX_EVENTS) {
        this.takenShare.delete(this.takenShare.keys().next().value!);
      }
    }
    this.newest = eventId;
  }
}
