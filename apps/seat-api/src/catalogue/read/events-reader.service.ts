import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Brackets, DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { BookingSeatEntity, EventEntity } from '@app/database';
import { DomainError } from '../../common/errors/domain-error';
import { ErrorCode } from '../../common/errors/error-code';
import { HoldStore, SeatChangeLog } from '../../hold-store';
import { CatalogueService } from '../catalogue.service';
import { policyOf } from '../policy/event-policy';
import { eventNotFound } from '../policy/event-policy.service';
import { EventSeats } from '../seat-cache';
import {
  AreaCountsView,
  EventPageView,
  EventSettingsView,
  EventSummaryView,
  EventView,
  RowView,
  SeatCountsView,
  SectionView,
} from './event.view';
import { ListEventsQuery } from './list-events.query';

/** Where a page ended: the last event's start and id, and which list it was (a cursor fits one list only). */
interface Cursor {
  when: ListEventsQuery['when'];
  startsAt: string;
  id: string;
}

const badCursor = () =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'cursor is not one of this list', {
    details: [{ field: 'cursor', message: 'must be a nextCursor of the same list (same `when`)' }],
  });

/**
 * Events as any signed-in caller reads them: a list (keyset pages by start time, so a page costs the
 * same however deep it is, and events added meanwhile neither repeat nor shift a page) and one event in
 * full: its layout as posted, its seat counts and its settings in effect.
 */
@Injectable()
export class EventsReader {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly catalogue: CatalogueService,
    private readonly changeLog: SeatChangeLog,
    private readonly config: AppConfig,
    private readonly store: HoldStore,
  ) {}

  async list(query: ListEventsQuery): Promise<EventPageView> {
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, query.when);
    const upcoming = query.when === 'upcoming';
    const qb = this.db
      .getRepository(EventEntity)
      .createQueryBuilder('e')
      .select(['e.id', 'e.name', 'e.startsAt', 'e.seatCount', 'e.sales'])
      .where(upcoming ? 'e.starts_at > now()' : 'e.starts_at <= now()')
      .orderBy('e.starts_at', upcoming ? 'ASC' : 'DESC')
      .addOrderBy('e.id', upcoming ? 'ASC' : 'DESC')
      .limit(query.limit + 1);
    if (query.q !== undefined) {
      // the text as typed: % and _ match only themselves
      qb.andWhere(`e.name ILIKE :pattern ESCAPE '\\'`, {
        pattern: `%${query.q.replace(/[\\%_]/g, '\\$&')}%`,
      });
    }
    if (after) {
      qb.andWhere(
        new Brackets((w) =>
          w.where(`(e.starts_at, e.id) ${upcoming ? '>' : '<'} (:startsAt, :id)`, {
            startsAt: after.startsAt,
            id: after.id,
          }),
        ),
      );
    }
    const rows = await qb.getMany();
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const view: EventPageView = { items: page.map(summary) };
    if (rows.length > query.limit && last) {
      view.nextCursor = encodeCursor({
        when: query.when,
        startsAt: last.startsAt.toISOString(),
        id: last.id,
      });
    }
    return view;
  }

  async detail(eventId: string): Promise<EventView> {
    const event = await this.db.getRepository(EventEntity).findOne({ where: { id: eventId } });
    const seats = event && (await this.catalogue.seatsOf(eventId));
    if (!event || !seats) {
      throw eventNotFound(eventId);
    }
    const policy = policyOf(event, this.config);
    return {
      ...summary(event),
      sections: layoutOf(seats),
      counts: await this.counts(event, policy.retainUntilMs),
      ...(seats.areas.size > 0 ? { areas: await this.areaCounts(event.id, seats) } : {}),
      settings: EventSettingsView.of(policy),
    };
  }

  /**
   * Each area's places as the hold store counts them (one small hash); an area it does not have (past the
   * event's retention, or before its repair) reads as all free.
   */
  async areaCounts(eventId: string, seats: EventSeats): Promise<AreaCountsView[]> {
    const kept = await this.store.areaCounts(eventId);
    return [...seats.areas.values()].map(({ name, category, capacity }) => {
      const c = kept.get(name) ?? { held: 0, booked: 0, blocked: 0 };
      const free = Math.max(0, capacity - c.held - c.booked - c.blocked);
      return { name, category, capacity, free, held: c.held, booked: c.booked, blocked: c.blocked };
    });
  }

  /**
   * The counts the hold store keeps with every change (one small read). Past the event's retention its
   * Redis keys may be gone: the bookings in PostgreSQL are then the counts.
   */
  private async counts(event: EventEntity, retainUntilMs: number): Promise<SeatCountsView> {
    let held = 0;
    let booked: number;
    if (Date.now() < retainUntilMs) {
      const kept = await this.changeLog.changesSince(event.id, Number.MAX_SAFE_INTEGER, 0);
      held = kept.held;
      booked = kept.booked;
    } else {
      booked = await this.db.getRepository(BookingSeatEntity).count({ where: { eventId: event.id } });
    }
    return { total: event.seatCount, available: Math.max(0, event.seatCount - held - booked), held, booked };
  }
}

function summary(e: EventEntity): EventSummaryView {
  return {
    eventId: e.id,
    name: e.name,
    startsAt: e.startsAt.toISOString(),
    seatCount: e.seatCount,
    sales: e.sales,
  };
}

/**
 * Sections and rows as posted: the cached seats are in posted order (SeatEntity.position); the areas go
 * back to their places among them.
 */
function layoutOf(seats: EventSeats): SectionView[] {
  const sections = rowsOf(seats);
  for (const a of seats.areas.values()) {
    sections.splice(a.position, 0, { name: a.name, category: a.category, capacity: a.capacity });
  }
  return sections;
}

function rowsOf(seats: EventSeats): SectionView[] {
  const sections: (SectionView & { rows: RowView[] })[] = [];
  for (const seat of seats.values()) {
    let section = sections[sections.length - 1];
    if (section?.name !== seat.section) {
      section = { name: seat.section, category: seat.category, rows: [] };
      sections.push(section);
    }
    let row = section.rows[section.rows.length - 1];
    if (row?.row === seat.row) {
      row.seats += 1;
    } else {
      row = { row: seat.row, seats: 1, ...(typeof seat.rowRank === 'number' ? { rank: seat.rowRank } : {}) };
      section.rows.push(row);
    }
    // marks only where the layout gave them, as posted
    if (seat.access) {
      (row[seat.access] ??= []).push(seat.number);
    }
  }
  return sections;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.when, c.startsAt, c.id])).toString('base64url');
}

function decodeCursor(text: string, when: Cursor['when']): Cursor {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (
    !Array.isArray(parts) ||
    parts.length !== 3 ||
    parts[0] !== when ||
    typeof parts[1] !== 'string' ||
    Number.isNaN(Date.parse(parts[1])) ||
    typeof parts[2] !== 'string' ||
    !/^[0-9a-f-]{36}$/.test(parts[2])
  ) {
    throw badCursor();
  }
  return { when, startsAt: parts[1], id: parts[2] };
}
