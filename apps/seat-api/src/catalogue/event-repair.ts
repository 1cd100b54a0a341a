import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BookingSeatEntity, SeatBlockEntity } from '@app/database';
import { HoldStore, StaffHoldStore } from '../hold-store';

/**
 * Puts back into Redis what PostgreSQL records of an event and a Redis that lost its data no longer has:
 * the event in its shard's events index (so its keys are removed once it is old), and its booked and
 * blocked seats. Idempotent; an event whose keys the sweep deleted is not written again (the scripts
 * refuse it by its tombstone).
 *
 * Run before anything of the event is served: at each instance's first load of the event
 * (CatalogueService), and whenever its policy version is put back into Redis after Redis lost it
 * (EventPolicyService.mirror): every hold is made only under that version, so no hold on any instance
 * sees the event before its booked and blocked seats are back, with no restart.
 */
@Injectable()
export class EventRepair {
  private readonly logger = new Logger('Catalogue');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly holds: HoldStore,
    private readonly staffStore: StaffHoldStore,
  ) {}

  async repair(eventId: string, startsAt: Date): Promise<void> {
    await this.holds.registerEvent(eventId, startsAt);
    const restore = [
      ['booked', BookingSeatEntity, (seats: string[]) => this.holds.markBooked(eventId, seats)],
      ['blocked', SeatBlockEntity, (seats: string[]) => this.staffStore.markBlocked(eventId, seats)],
    ] as const;
    for (const [what, entity, mark] of restore) {
      const rows = await this.db
        .getRepository<{ eventId: string; seatId: string }>(entity)
        .find({ where: { eventId }, select: { seatId: true } });
      const changed = rows.length > 0 ? await mark(rows.map((r) => r.seatId)) : 0;
      if (changed > 0) {
        this.logger.warn(
          `event ${eventId}: ${changed} ${what} seat(s) were missing in Redis and were restored`,
        );
      }
    }
  }
}
