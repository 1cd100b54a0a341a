import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { EventAreaEntity, EventEntity, type SeatAccess, SeatEntity } from '@app/database';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { AllocationStore, HoldStore, layoutRows } from '../hold-store';
import { EventRepair } from './event-repair';
import { CreateEventDto, MAX_SEATS_PER_EVENT, RowLayoutDto } from './dto/create-event.dto';
import { ownColumns } from './policy/event-policy';
import { CatalogueArea, CatalogueSeat, EventSeats, SeatCache } from './seat-cache';

/**
 * Events and their seats (PostgreSQL). A seat layout never changes once created, so each event's seats
 * are cached in memory after the first read (bounded, see SeatCache): the hot paths (hold, seat map) then
 * touch only Redis. Event ids arrive canonical (lower case) from the edge.
 */
@Injectable()
export class CatalogueService implements OnModuleDestroy {
  private readonly logger = new Logger('Catalogue');
  private readonly seatCache: SeatCache;
  private readonly eventRetentionMs: number;
  /** Of an event created without one (EVENT_ORPHAN_RULE). */
  private readonly orphanRule: EventEntity['orphanRule'];

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly holds: HoldStore,
    private readonly allocation: AllocationStore,
    config: AppConfig,
    private readonly repairs: EventRepair,
  ) {
    this.eventRetentionMs = config.holds.eventRetentionSeconds * 1000;
    this.orphanRule = config.holds.orphanRule;
    this.seatCache = new SeatCache(config.catalogue.cacheMaxBytes, (eventId) => this.loadSeats(eventId));
  }

  async createEvent(dto: CreateEventDto): Promise<{ eventId: string; seatCount: number }> {
    const seats: SeatEntity[] = [];
    const areas: EventAreaEntity[] = [];
    const eventId = randomUUID();
    for (const [position, section] of dto.sections.entries()) {
      if (section.capacity !== undefined) {
        const { name, category, capacity } = section;
        areas.push(Object.assign(new EventAreaEntity(), { eventId, name, category, capacity, position }));
        continue;
      }
      for (const row of section.rows ?? []) {
        const access = seatAccess(section.name, row);
        for (let n = 1; n <= row.seats; n++) {
          seats.push(
            Object.assign(new SeatEntity(), {
              eventId,
              seatId: `${section.name}-${row.row}-${n}`,
              section: section.name,
              row: row.row,
              number: n,
              category: section.category,
              position: seats.length,
              rowRank: row.rank ?? null,
              access: access.get(n) ?? null,
            }),
          );
        }
      }
    }
    const ids = new Set(seats.map((s) => s.seatId));
    const names = dto.sections.map((s) => s.name);
    if (ids.size !== seats.length || new Set(names).size !== names.length) {
      throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The layout repeats a section/row pair', {
        details: [{ field: 'sections', message: 'each section name and row label must be unique' }],
      });
    }
    // seats and general-admission places together
    const places = areas.reduce((sum, a) => sum + a.capacity, 0);
    if (seats.length + places > MAX_SEATS_PER_EVENT) {
      throw new DomainError(
        ErrorCode.VALIDATION_FAILED,
        `An event has at most ${MAX_SEATS_PER_EVENT} seats and places`,
        {
          details: [{ field: 'sections', message: `${seats.length} seats and ${places} places` }],
        },
      );
    }
    await this.db.transaction(async (tx) => {
      await tx.insert(EventEntity, {
        id: eventId,
        name: dto.name,
        startsAt: new Date(dto.startsAt),
        seatCount: seats.length,
        ...ownColumns(dto.settings),
        orphanRule: dto.settings?.orphanRule ?? this.orphanRule,
        accessibleSeatsForAll: dto.settings?.accessibleSeatsForAll ?? 'when-others-gone',
      });
      for (let i = 0; i < seats.length; i += 2000) {
        await tx.insert(SeatEntity, seats.slice(i, i + 2000));
      }
      if (areas.length > 0) {
        await tx.insert(EventAreaEntity, areas);
      }
    });
    try {
      await this.holds.registerEvent(eventId, new Date(dto.startsAt));
    } catch (e) {
      // the event is committed: answering 503 would invite a retry that creates it twice. Loading its
      // seats (first hold or seat map, on any instance) registers it again.
      this.logger.warn(
        `event ${eventId}: registering in Redis failed (${(e as Error).message}); retried on first use`,
      );
    }
    return { eventId, seatCount: seats.length };
  }

  /** The event's seats by id, or null when the event does not exist. */
  seatsOf(eventId: string): Promise<EventSeats | null> {
    return this.seatCache.get(eventId);
  }

  /**
   * The seats of an event whose state Redis still has: once the shard's sweep deleted the event's keys
   * (past its retention, nothing of it live or kept), its booked seats are gone from Redis too, and a
   * seat map read from there would show them AVAILABLE: refused, 409 EVENT_ENDED.
   */
  async requireSeats(eventId: string): Promise<EventSeats> {
    const seats = await this.existingSeats(eventId);
    if (await this.holds.eventRemoved(eventId)) {
      throw new DomainError(
        ErrorCode.EVENT_ENDED,
        `Event ${eventId} is over: its seat map is no longer kept`,
      );
    }
    return seats;
  }

  /**
   * The seats of an event, for a hold. Whether the event still takes holds is the hold script's to say, by
   * Redis time (EVENT_ENDED: past its start + HOLD_EVENT_RETENTION_SECONDS, or its keys deleted): one clock
   * for every instance, and the same atomic step as the hold, so no hold re-creates a deleted event's keys.
   */
  requireSeatsToHold(eventId: string): Promise<EventSeats> {
    return this.existingSeats(eventId);
  }

  private async existingSeats(eventId: string): Promise<EventSeats> {
    const seats = await this.seatsOf(eventId);
    if (!seats) {
      throw new DomainError(ErrorCode.EVENT_NOT_FOUND, `Event ${eventId} does not exist`);
    }
    return seats;
  }

  /** Gives the cache's bytes back to its metrics (tests build several apps in one process). */
  onModuleDestroy(): void {
    this.seatCache.clear();
  }

  private async loadSeats(eventId: string): Promise<EventSeats | null> {
    const event = await this.db
      .getRepository(EventEntity)
      .findOne({ where: { id: eventId }, select: { id: true, startsAt: true, orphanRule: true } });
    if (!event) {
      return null;
    }
    const areas = await this.db
      .getRepository(EventAreaEntity)
      .find({ where: { eventId }, order: { position: 'ASC' } });
    // once per event per instance; also registers an event whose registration at creation failed
    await this.repairs.repair(eventId, event.startsAt);
    const rows = await this.db
      .getRepository(SeatEntity)
      .find({ where: { eventId }, order: { position: 'ASC' } }); // as posted (SeatEntity.position)
    // the free-seat index of best-available holds, with the event's orphan rule: before any hold of it
    await this.allocation.ensureIndex(eventId, { rows: layoutRows(rows), orphanRule: event.orphanRule });
    // only what the seat map shows: every byte here is multiplied by the seats of each cached event
    return new EventSeats(
      rows.map(({ seatId, section, row, number, category, rowRank, access }): [string, CatalogueSeat] => [
        seatId,
        { seatId, section, row, number, category, rowRank, access },
      ]),
      event.startsAt.getTime() + this.eventRetentionMs,
      new Map(
        areas.map(({ name, category, capacity, position }): [string, CatalogueArea] => [
          name,
          { name, category, capacity, position },
        ]),
      ),
    );
  }
}

/**
 * A row's wheelchair places and companion seats by seat number. A number past the row's seats, or given
 * as both, is the layout's mistake: refused, naming the row, before anything is written.
 */
function seatAccess(section: string, row: RowLayoutDto): Map<number, SeatAccess> {
  const access = new Map<number, SeatAccess>();
  for (const [kind, numbers] of [
    ['accessible', row.accessible ?? []],
    ['companion', row.companion ?? []],
  ] as const) {
    for (const n of numbers) {
      if (n > row.seats || access.has(n)) {
        throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The layout marks a seat it does not have', {
          details: [
            {
              field: 'sections',
              message: `${section} row ${row.row}: seat ${n} is past its ${row.seats} seats or marked twice`,
            },
          ],
        });
      }
      access.set(n, kind);
    }
  }
  return access;
}
