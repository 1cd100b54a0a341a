import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { SalesState, WaitlistStatus } from '../entities';
import { ShowOffers } from './show-offers';

/** An entry as its user reads it, with its place while WAITING (1 = next to be offered seats). */
export interface EntryRead {
  id: string;
  eventId: string;
  quantity: number;
  category: string | null;
  /** The general-admission area it waits for places of; null: it waits for seats. */
  area: string | null;
  status: WaitlistStatus;
  holdId: string | null;
  offerExpiresAt: Date | null;
  position: number | null;
  /** Why freed seats it fitted last went to the entries behind it, and when (see WaitlistEntryEntity). */
  skipReason: string | null;
  skippedAt: Date | null;
}

/**
 * WAITING entries of the show's queue ahead of entry `e`, plus one: the queue order is (created_at, id),
 * and each area has its own queue beside the seats' (area null).
 */
const POSITION = `CASE WHEN e.status = 'WAITING' THEN 1 + (
    SELECT count(*) FROM waitlist_entries a
     WHERE a.event_id = e.event_id AND a.area IS NOT DISTINCT FROM e.area AND a.status = 'WAITING'
       AND (a.created_at, a.id) < (e.created_at, e.id)
  )::int END`;

/**
 * Every statement on the waiting list's tables, for the two apps that use them: the seat API joins, reads
 * and leaves (apps/seat-api/src/waitlist), apps/waitlist makes the offers and follows them (accepted,
 * lapsed). One home, so the queue's order and the entry's states mean the same on both sides.
 */
@Injectable()
export class WaitlistRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * What a join needs to know of the event, read fresh (a sale closed on another instance counts at once);
   * none when it does not exist. `hasCategory`: it has a seat of `category` (null: any seat will do);
   * `hasArea`: it has the general-admission area `area` (null: true).
   */
  async joinTarget(
    eventId: string,
    category: string | null,
    area: string | null,
  ): Promise<{ sales: SalesState; startsAt: Date; hasCategory: boolean; hasArea: boolean } | undefined> {
    const [row] = await this.db.query<
      { sales: SalesState; starts_at: Date; has_category: boolean; has_area: boolean }[]
    >(
      `SELECT e.sales, e.starts_at,
              EXISTS (SELECT 1 FROM seats WHERE event_id = $1 AND ($2::text IS NULL OR category = $2)) AS has_category,
              ($3::text IS NULL OR EXISTS (SELECT 1 FROM event_areas WHERE event_id = $1 AND name = $3)) AS has_area
         FROM events e WHERE e.id = $1`,
      [eventId, category, area],
    );
    return (
      row && {
        sales: row.sales,
        startsAt: row.starts_at,
        hasCategory: row.has_category,
        hasArea: row.has_area,
      }
    );
  }

  /**
   * A new WAITING entry, unless the user has an open one (WAITING or OFFERED) for the event: the partial
   * unique index is that rule, so two joins at once cannot both get in. Whether it was added.
   */
  async join(entry: {
    id: string;
    eventId: string;
    userId: string;
    quantity: number;
    category: string | null;
    area: string | null;
  }): Promise<boolean> {
    const inserted = await this.db.query<unknown[]>(
      `INSERT INTO waitlist_entries (id, event_id, user_id, quantity, category, area, status)
       VALUES ($1, $2, $3, $4, $5, $6, 'WAITING')
       ON CONFLICT (event_id, user_id) WHERE status IN ('WAITING', 'OFFERED') DO NOTHING
       RETURNING id`,
      [entry.id, entry.eventId, entry.userId, entry.quantity, entry.category, entry.area],
    );
    return inserted.length > 0;
  }

  /** The user's own entry (another user's reads as none). */
  async entryOf(entryId: string, userId: string): Promise<EntryRead | undefined> {
    const [row] = await this.db.query<
      {
        id: string;
        event_id: string;
        quantity: number;
        category: string | null;
        area: string | null;
        status: WaitlistStatus;
        hold_id: string | null;
        offer_expires_at: Date | null;
        position: number | null;
        skip_reason: string | null;
        skipped_at: Date | null;
      }[]
    >(
      `SELECT e.id, e.event_id, e.quantity, e.category, e.area, e.status, e.hold_id, e.offer_expires_at,
              e.skip_reason, e.skipped_at, ${POSITION} AS position
         FROM waitlist_entries e WHERE e.id = $1 AND e.user_id = $2`,
      [entryId, userId],
    );
    return (
      row && {
        id: row.id,
        eventId: row.event_id,
        quantity: row.quantity,
        category: row.category,
        area: row.area,
        status: row.status,
        holdId: row.hold_id,
        offerExpiresAt: row.offer_expires_at,
        position: row.position,
        skipReason: row.skip_reason,
        skippedAt: row.skipped_at,
      }
    );
  }

  /**
   * The user's entry becomes LEFT, if it is still open (or LEFT already: leaving again is the same
   * answer); the hold of its offer, if it had one. An entry closed otherwise stays as it is.
   */
  async leave(entryId: string, userId: string): Promise<{ holdId: string | null }> {
    const [rows] = await this.db.query<[{ hold_id: string | null }[], number]>(
      `UPDATE waitlist_entries SET status = 'LEFT'
        WHERE id = $1 AND user_id = $2 AND status IN ('WAITING', 'OFFERED', 'LEFT')
        RETURNING hold_id`,
      [entryId, userId],
    );
    return { holdId: rows[0]?.hold_id ?? null };
  }

  /**
   * Runs `work` in one transaction under a transaction-scoped advisory lock on the show: two consumers
   * that get the same changes (a rebalance hands a partition over while its old owner still works) take
   * turns, and the second sees the first's offers. The run also holds a lock of its own id for as long as
   * its transaction lives, which ShowOffers.announce checks.
   */
  offering<T>(eventId: string, work: (show: ShowOffers) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => work(await ShowOffers.start(tx, this.db, eventId)));
  }

  /** The offers' holds were booked: their entries accepted them. */
  async accepted(holdIds: string[]): Promise<void> {
    await this.db.query(
      `UPDATE waitlist_entries SET status = 'ACCEPTED'
        WHERE hold_id = ANY($1::text[]) AND status IN ('OFFERED', 'LAPSED')`,
      [holdIds],
    );
  }

  /** Kafka has these offers' WaitlistOfferMade: a redelivery does not announce them again. */
  async published(offers: { sourceEventId: string; entryId: string }[]): Promise<void> {
    await this.db.query(
      `UPDATE waitlist_offers SET published_at = now()
        WHERE (source_event_id, entry_id) IN (SELECT * FROM unnest($1::text[], $2::uuid[]))`,
      [offers.map((o) => o.sourceEventId), offers.map((o) => o.entryId)],
    );
  }
}
