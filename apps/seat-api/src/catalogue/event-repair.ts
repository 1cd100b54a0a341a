import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BookingSeatEntity, EventAreaEntity, SeatBlockEntity } from '@app/database';
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
    await this.repairAreas(eventId);
  }

  /**
   * The event's general-admission areas: each one's capacity, the places its confirmed bookings sold and
   * the places box office blocked, from PostgreSQL; the places of live holds the hold store counts itself (lua/areas-repair.lua).
   */
  private async repairAreas(eventId: string): Promise<void> {
    const areas = await this.db
      .getRepository(EventAreaEntity)
      .find({ where: { eventId }, select: { name: true, capacity: true, blocked: true } });
    if (areas.length === 0) {
      return;
    }
    const sold = await this.db.query<{ area: string; booked: string }[]>(
      `SELECT p->>'area' AS area, sum((p->>'quantity')::int) AS booked
         FROM bookings b, jsonb_array_elements(b.places) p
        WHERE b.event_id = $1 AND b.status = 'CONFIRMED' AND b.places IS NOT NULL
        GROUP BY 1`,
      [eventId],
    );
    const booked = new Map(sold.map((r) => [r.area, Number(r.booked)]));
    const changed = await this.holds.repairAreas(
      eventId,
      areas.map((a) => ({
        name: a.name,
        capacity: a.capacity,
        booked: booked.get(a.name) ?? 0,
        blocked: a.blocked,
      })),
    );
    if (changed > 0) {
      this.logger.log(`event ${eventId}: ${changed} general-admission area(s) set from PostgreSQL`);
    }
  }
}
