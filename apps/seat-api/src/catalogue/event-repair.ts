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
    const booked = await this.db
      .getRepository(BookingSeatEntity)
      .find({ where: { eventId }, select: { seatId: true } });
    if (booked.length > 0) {
      const changed = await this.holds.markBooked(
        eventId,
        booked.map((b) => b.seatId),
      );
      if (changed > 0) {
        this.logger.warn(
          `event ${eventId}: ${changed} booked seat(s) were missing in Redis and were restored`,
        );
      }
    }
    const blocked = await this.db
      .getRepository(SeatBlockEntity)
      .find({ where: { eventId }, select: { seatId: true } });
    if (blocked.length > 0) {
      const changed = await this.staffStore.markBlocked(
        eventId,
        blocked.map((b) => b.seatId),
      );
      if (changed > 0) {
        this.logger.warn(
          `event ${eventId}: ${changed} blocked seat(s) were missing in Redis and were restored`,
        );
      }
    }
  }
}
