import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntryRead, WaitlistRepository } from '@app/database';
import { AppConfig } from '@app/config';
import { AuthUser } from '../auth/auth-user';
import { eventCancelled, eventNotFound, salesClosed } from '../catalogue/policy/event-policy.service';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { HoldsService } from '../holds/holds.service';
import { JoinWaitlistDto } from './dto/join-waitlist.dto';
import { JoinedWaitlistView, WaitlistEntryView } from './dto/waitlist-entry.view';

/**
 * Joining, reading and leaving a show's waiting list (PostgreSQL only, through WaitlistRepository). The
 * offers are apps/waitlist's: it reads the queue in the order these rows give and writes OFFERED, ACCEPTED
 * and LAPSED.
 */
@Injectable()
export class WaitlistService {
  constructor(
    private readonly waitlist: WaitlistRepository,
    private readonly holds: HoldsService,
    private readonly config: AppConfig,
  ) {}

  async join(user: AuthUser, eventId: string, dto: JoinWaitlistDto): Promise<JoinedWaitlistView> {
    await this.requireJoinable(eventId, dto.category, dto.area);
    const id = randomUUID();
    const joined = await this.waitlist.join({
      id,
      eventId,
      userId: user.id,
      quantity: dto.quantity,
      category: dto.category ?? null,
      area: dto.area ?? null,
    });
    if (!joined) {
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
      eventId: e.eventId,
      quantity: e.quantity,
      status: e.status,
    };
    if (e.category !== null) {
      view.category = e.category;
    }
    if (e.area !== null) {
      view.area = e.area;
    }
    if (e.position !== null) {
      view.position = e.position;
    }
    if (e.holdId !== null) {
      view.holdId = e.holdId;
    }
    if (e.status === 'OFFERED' && e.offerExpiresAt) {
      view.offerExpiresAt = e.offerExpiresAt.toISOString();
    }
    if (e.status === 'WAITING' && e.skipReason !== null && e.skippedAt !== null) {
      view.skipped = { reason: e.skipReason, at: e.skippedAt.toISOString() };
    }
    return view;
  }

  /**
   * Leaves the list; an open offer is declined: its hold is released, and apps/waitlist offers the seats
   * to the next entry when it reads the release. The entry is LEFT before the hold is released, so the
   * release is never read as a lapse of an open offer; a retry after a failed release releases it again
   * (releasing an ended hold changes nothing). An entry already closed otherwise stays as it is. An offer
   * being made meanwhile is not this call's: apps/waitlist finds the entry LEFT when it stores the offer,
   * and releases the hold it made (its OfferMaker).
   */
  async leave(user: AuthUser, entryId: string): Promise<void> {
    await this.own(user, entryId);
    const { holdId } = await this.waitlist.leave(entryId, user.id);
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
  private async own(user: AuthUser, entryId: string): Promise<EntryRead> {
    const entry = await this.waitlist.entryOf(entryId, user.id);
    if (!entry) {
      throw new DomainError(ErrorCode.WAITLIST_ENTRY_NOT_FOUND, `No waiting-list entry ${entryId}`);
    }
    return entry;
  }

  /**
   * 404 for an unknown event; the refusal a hold of it gets when it takes none (cancelled, sales closed,
   * past its start + HOLD_EVENT_RETENTION_SECONDS), checked in the order a hold checks them: a place in a
   * queue that is never offered anything is no place; 400 for a category the event has no seat of, an
   * area it does not have, or seats of a show of standing areas alone (they could never be offered).
   */
  private async requireJoinable(
    eventId: string,
    category: string | undefined,
    area: string | undefined,
  ): Promise<void> {
    const target = await this.waitlist.joinTarget(eventId, category ?? null, area ?? null);
    if (!target) {
      throw eventNotFound(eventId);
    }
    if (target.sales === 'CANCELLED') {
      throw eventCancelled(eventId);
    }
    if (target.sales === 'CLOSED') {
      throw salesClosed(eventId);
    }
    if (Date.now() >= target.startsAt.getTime() + this.config.holds.eventRetentionSeconds * 1000) {
      throw new DomainError(
        ErrorCode.EVENT_ENDED,
        `Event ${eventId} is over: its seats can no longer be held`,
      );
    }
    if (area !== undefined) {
      if (!target.hasArea) {
        throw new DomainError(ErrorCode.VALIDATION_FAILED, `Event ${eventId} has no area ${area}`, {
          details: [{ field: 'area', message: 'the event has no general-admission area of this name' }],
        });
      }
    } else if (!target.hasCategory) {
      const field = category === undefined ? 'area' : 'category';
      const message =
        category === undefined
          ? 'the event has no seats: name one of its areas'
          : 'the event has no seat of this category';
      throw new DomainError(ErrorCode.VALIDATION_FAILED, `Event ${eventId}: ${message}`, {
        details: [{ field, message }],
      });
    }
  }
}
