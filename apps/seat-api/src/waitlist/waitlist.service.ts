import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { WaitlistStatus } from '@app/database';
import { AuthUser } from '../auth/auth-user';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { HoldsService } from '../holds/holds.service';
import { JoinWaitlistDto } from './dto/join-waitlist.dto';
import { JoinedWaitlistView, WaitlistEntryView } from './dto/waitlist-entry.view';

interface EntryRow {
  id: string;
  event_id: string;
  quantity: number;
  category: string | null;
  status: WaitlistStatus;
  hold_id: string | null;
  offer_expires_at: Date | null;
  position: number | null;
}

/** WAITING entries of the show ahead of entry `e`, plus one: the queue order is (created_at, id). */
const POSITION = `CASE WHEN e.status = 'WAITING' THEN 1 + (
    SELECT count(*) FROM waitlist_entries a
     WHERE a.event_id = e.event_id AND a.status = 'WAITING' AND (a.created_at, a.id) < (e.created_at, e.id)
  )::int END`;

/**
 * Joining, reading and leaving a show's waiting list (PostgreSQL only). The offers are apps/waitlist's: it
 * reads the queue in the order these rows give and writes OFFERED, ACCEPTED and LAPSED.
 */
@Injectable()
export class WaitlistService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly holds: HoldsService,
  ) {}

  async join(user: AuthUser, eventId: string, dto: JoinWaitlistDto): Promise<JoinedWaitlistView> {
    await this.requireEvent(eventId, dto.category);
    const id = randomUUID();
    // the partial unique index is the one-open-entry rule: two joins at once cannot both get in
    const inserted = await this.db.query<unknown[]>(
      `INSERT INTO waitlist_entries (id, event_id, user_id, quantity, category, status)
       VALUES ($1, $2, $3, $4, $5, 'WAITING')
       ON CONFLICT (event_id, user_id) WHERE status IN ('WAITING', 'OFFERED') DO NOTHING
       RETURNING id`,
      [id, eventId, user.id, dto.quantity, dto.category ?? null],
    );
    if (inserted.length === 0) {
      throw new DomainError(
        ErrorCode.WAITLIST_ENTRY_EXISTS,
        `You are on the waiting list of event ${eventId} already`,
      );
    }
    const entry = await this.own(user, id);
    return { entryId: id, position: entry.position ?? 1 };
  }

  async get(user: AuthUser, entryId: string): Promise<WaitlistEntryView> {
    const e = await this.own(user, entryId);
    const view: WaitlistEntryView = {
      entryId: e.id,
      eventId: e.event_id,
      quantity: e.quantity,
      status: e.status,
    };
    if (e.category !== null) {
      view.category = e.category;
    }
    if (e.position !== null) {
      view.position = e.position;
    }
    if (e.hold_id !== null) {
      view.holdId = e.hold_id;
    }
    if (e.status === 'OFFERED' && e.offer_expires_at) {
      view.offerExpiresAt = e.offer_expires_at.toISOString();
    }
    return view;
  }

  /**
   * Leaves the list; an open offer is declined: its hold is released, and apps/waitlist offers the seats
   * to the next entry when it reads the release. The entry is LEFT before the hold is released, so the
   * release is never read as a lapse of an open offer; a retry after a failed release releases it again
   * (releasing an ended hold changes nothing). An entry already closed otherwise stays as it is.
   */
  async leave(user: AuthUser, entryId: string): Promise<void> {
    await this.own(user, entryId);
    const rows = await this.db.query<[{ hold_id: string | null }[], number]>(
      `UPDATE waitlist_entries SET status = 'LEFT'
        WHERE id = $1 AND user_id = $2 AND status IN ('WAITING', 'OFFERED', 'LEFT')
        RETURNING hold_id`,
      [entryId, user.id],
    );
    const holdId = rows[0][0]?.hold_id;
    if (holdId) {
      try {
        await this.holds.release(user, holdId);
      } catch (e) {
        // booked meanwhile: the offer was taken (the booking stands); gone: nothing left to release
        const code = e instanceof DomainError ? e.code : undefined;
        if (code !== ErrorCode.HOLD_CONFIRMED && code !== ErrorCode.HOLD_NOT_FOUND) {
          throw e;
        }
      }
    }
  }

  /** The user's own entry: another user's is answered as one that does not exist (no id probing). */
  private async own(user: AuthUser, entryId: string): Promise<EntryRow> {
    const [row] = await this.db.query<EntryRow[]>(
      `SELECT e.id, e.event_id, e.quantity, e.category, e.status, e.hold_id, e.offer_expires_at,
              ${POSITION} AS position
         FROM waitlist_entries e WHERE e.id = $1 AND e.user_id = $2`,
      [entryId, user.id],
    );
    if (!row) {
      throw new DomainError(ErrorCode.WAITLIST_ENTRY_NOT_FOUND, `No waiting-list entry ${entryId}`);
    }
    return row;
  }

  /** 404 for an unknown event; 400 for a category the event has no seat of (it could never be offered). */
  private async requireEvent(eventId: string, category: string | undefined): Promise<void> {
    const [row] = await this.db.query<{ event: boolean; category: boolean }[]>(
      `SELECT EXISTS (SELECT 1 FROM events WHERE id = $1) AS event,
              ($2::text IS NULL OR EXISTS (SELECT 1 FROM seats WHERE event_id = $1 AND category = $2)) AS category`,
      [eventId, category ?? null],
    );
    if (!row.event) {
      throw new DomainError(ErrorCode.EVENT_NOT_FOUND, `Event ${eventId} does not exist`);
    }
    if (!row.category) {
      throw new DomainError(ErrorCode.VALIDATION_FAILED, `Event ${eventId} has no seat of that category`, {
        details: [{ field: 'category', message: 'the event has no seat of this category' }],
      });
    }
  }
}
