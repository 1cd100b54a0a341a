import { Injectable, Logger } from '@nestjs/common';
import { AuditAction } from '../audit/audit-action';
import { ActionRefused, AuditedActions } from '../audit/audited-actions';
import { AuthUser } from '../auth/auth-user';
import { CatalogueService } from '../catalogue/catalogue.service';
import {
  eventCancelled,
  eventNotFound,
  EventPolicyService,
  salesClosed,
} from '../catalogue/policy/event-policy.service';
import { EventPolicy } from '../catalogue/policy/event-policy';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { QueueChangeResult, QueueControl, QueueEntryRecord, QueueStore } from '../hold-store';
import { AdmissionPasses } from './admission-passes';
import { ConfigureQueueDto, QUEUE_LIMITS } from './dto/configure-queue.dto';
import { QueueEntryView } from './dto/queue-entry.view';
import { QueueAdmission } from './queue-admission';
import { queueEntryNotFound, queueNotFound } from './queue-errors';
import { QueueStatus, QueueStatusCache } from './queue-status.cache';

/** Bounds of refreshAfterSeconds: soon enough near the front, never so slow that an entry looks idle. */
const REFRESH_MIN_SECONDS = 2;
const REFRESH_MAX_SECONDS = 20;

const givenUp = () =>
  new DomainError(ErrorCode.BUSY, 'The change took too long and was given up; nothing was done. Try again');

/**
 * An event's on-sale queue (lua/queue.lua says how it works): staff set it up and steer it, each change an
 * audited action (AuditedActions: its entry and the change in Redis together, or neither); shoppers join,
 * read their entry (which keeps them from being taken for idle, and brings their pass in their turn), and
 * leave. The public status comes from this instance's QueueStatusCache, never from Redis per request.
 */
@Injectable()
export class QueueService {
  private readonly logger = new Logger('Queue');

  constructor(
    private readonly store: QueueStore,
    private readonly statuses: QueueStatusCache,
    private readonly admission: QueueAdmission,
    private readonly passes: AdmissionPasses,
    private readonly catalogue: CatalogueService,
    private readonly policies: EventPolicyService,
    private readonly audited: AuditedActions,
  ) {}

  /** The event's queue status: this instance's, else one step of it now (404 without a queue). */
  async status(eventId: string): Promise<QueueStatus> {
    const known = this.statuses.get(eventId);
    if (known) {
      return known;
    }
    const stepped = known === null ? null : await this.admission.step(eventId);
    if (!stepped) {
      await this.catalogue.requireSeats(eventId);
      throw queueNotFound(eventId);
    }
    return stepped;
  }

  async configure(actor: AuthUser, eventId: string, dto: ConfigureQueueDto): Promise<QueueStatus> {
    const policy = await this.sellable(eventId);
    const opensAtMs = Date.parse(dto.opensAt);
    const salesStartAtMs = Date.parse(dto.salesStartAt);
    const now = Date.now();
    const wrong = [
      ...(opensAtMs <= now ? [{ field: 'opensAt', message: 'must be in the future' }] : []),
      ...(salesStartAtMs < opensAtMs
        ? [{ field: 'salesStartAt', message: 'must not be before opensAt' }]
        : []),
      ...(salesStartAtMs >= policy.startsAtMs
        ? [{ field: 'salesStartAt', message: 'must be before the event starts' }]
        : []),
    ];
    if (wrong.length > 0) {
      throw new DomainError(ErrorCode.VALIDATION_FAILED, 'These times do not work for a queue', {
        details: wrong,
      });
    }
    const settings = {
      opensAtMs,
      salesStartAtMs,
      order: dto.order ?? 'shuffle-then-fifo',
      admitPerMinute: dto.admitPerMinute,
      maxActiveShoppers: dto.maxActiveShoppers,
      passTtlMs: (dto.passTtlSeconds ?? QUEUE_LIMITS.passTtlSeconds.default) * 1000,
      idleEntryTtlMs: (dto.idleEntryTtlSeconds ?? QUEUE_LIMITS.idleEntryTtlSeconds.default) * 1000,
    };
    await this.audited.run(
      { eventId, actor: actor.id, action: AuditAction.QUEUE_CONFIGURE, target: 'queue', detail: { ...dto } },
      async (_id, action) =>
        this.refusedUnlessDone(eventId, await this.store.configure(eventId, settings, action)),
    );
    this.logger.log({ msg: 'queue set up', eventId, actor: actor.id, ...settings });
    return (await this.admission.step(eventId))!;
  }

  /** Pauses, resumes, paces or lets shoppers in now: the queue's status after it. */
  async control(
    actor: AuthUser,
    eventId: string,
    c: Exclude<QueueControl, { mode: 'close' }>,
  ): Promise<QueueStatus> {
    await this.change(actor, eventId, c);
    return (await this.admission.step(eventId)) ?? this.status(eventId);
  }

  /** Switches the event's queue off: holds need no pass any more; every entry and pass is gone. */
  async close(actor: AuthUser, eventId: string): Promise<void> {
    await this.change(actor, eventId, { mode: 'close' });
    this.statuses.drop(eventId);
  }

  private async change(actor: AuthUser, eventId: string, c: QueueControl): Promise<void> {
    await this.catalogue.requireSeats(eventId);
    const action = {
      pause: AuditAction.QUEUE_PAUSE,
      resume: AuditAction.QUEUE_RESUME,
      pace: AuditAction.QUEUE_PACE,
      admit: AuditAction.QUEUE_ADMIT,
      close: AuditAction.QUEUE_CLOSE,
    }[c.mode];
    await this.audited.run(
      { eventId, actor: actor.id, action, target: 'queue', detail: { ...c } },
      async (_id, staff) => this.refusedUnlessDone(eventId, await this.store.control(eventId, c, staff)),
    );
    this.logger.log({ msg: `queue ${c.mode}`, eventId, actor: actor.id });
  }

  /** `user` joins: their entry (`created`: a new place; else the one they had). */
  async join(user: AuthUser, eventId: string): Promise<{ created: boolean; entry: QueueEntryView }> {
    await this.sellable(eventId);
    // a queue's keys go with its event's (the sweep removes both): a queue found is an event still kept, so
    // the catalogue's check, a Redis round trip, is asked only to tell why there is none
    const r = await this.store.join(eventId, user.id);
    if (!r.ok) {
      if (r.error === 'NO_QUEUE') {
        await this.catalogue.requireSeats(eventId);
        throw queueNotFound(eventId);
      }
      throw new DomainError(ErrorCode.QUEUE_NOT_OPEN, 'The queue does not take entries yet', {
        details: [{ opensAt: new Date(r.opensAtMs).toISOString() }],
      });
    }
    return { created: r.created, entry: await this.view(r.entry, user, null) };
  }

  /** `user`'s entry (someone else's is not found), with its pass once admitted. */
  async entry(user: AuthUser, entryId: string): Promise<QueueEntryView> {
    const found = await this.store.entry(entryId, user.id);
    if (!found) {
      throw queueEntryNotFound(entryId);
    }
    return this.view(found.entry, user, found.pass);
  }

  async leave(user: AuthUser, entryId: string): Promise<void> {
    if (!(await this.store.leave(entryId, user.id))) {
      throw queueEntryNotFound(entryId);
    }
  }

  /** The event takes holds at all: a queue for a cancelled or ended show, or one whose sales are closed, would admit nobody. */
  private async sellable(eventId: string): Promise<EventPolicy> {
    const policy = await this.policies.forHold(eventId);
    if (!policy) {
      throw eventNotFound(eventId);
    }
    if (policy.sales === 'CANCELLED') {
      throw eventCancelled(eventId);
    }
    if (policy.sales === 'CLOSED') {
      throw salesClosed(eventId);
    }
    if (Date.now() >= policy.retainUntilMs) {
      throw new DomainError(
        ErrorCode.EVENT_ENDED,
        `Event ${eventId} is over: its seats can no longer be held`,
      );
    }
    return policy;
  }

  private refusedUnlessDone(eventId: string, r: QueueChangeResult): QueueChangeResult {
    if (r.ok) {
      return r;
    }
    switch (r.error) {
      case 'ACTION_CANCELLED':
        throw new ActionRefused(givenUp());
      case 'NO_QUEUE':
        throw new ActionRefused(queueNotFound(eventId));
      case 'QUEUE_OPEN':
        throw new ActionRefused(
          new DomainError(
            ErrorCode.QUEUE_OPEN,
            'The queue is open: its times and order stay; change its pace or cap, pause it, or switch it off',
          ),
        );
      case 'EVENT_ENDED':
        throw new ActionRefused(
          new DomainError(ErrorCode.EVENT_ENDED, `Event ${eventId} is over: its seats can no longer be held`),
        );
    }
  }

  /** An entry as its user sees it: its place, its pass once admitted (signed here the first time). */
  private async view(e: QueueEntryRecord, user: AuthUser, issued: string | null): Promise<QueueEntryView> {
    const view: QueueEntryView = {
      entryId: e.entryId,
      eventId: e.eventId,
      status: e.state,
      number: e.number,
      refreshAfterSeconds: REFRESH_MAX_SECONDS,
    };
    const status = this.statuses.get(e.eventId);
    if (e.state === 'WAITING' || e.state === 'PREQUEUE') {
      const idleSeconds = status?.view.idleEntryTtlSeconds ?? QUEUE_LIMITS.idleEntryTtlSeconds.min;
      let secondsAway = REFRESH_MAX_SECONDS * 4;
      if (status && e.state === 'WAITING') {
        view.placesAhead = Math.max(0, e.number - status.view.servingNumber - 1);
        secondsAway = view.placesAhead * status.view.etaSecondsPerPlace;
      } else if (status) {
        secondsAway = (Date.parse(status.view.salesStartAt) - Date.now()) / 1000;
      }
      view.refreshAfterSeconds = Math.round(
        Math.max(REFRESH_MIN_SECONDS, Math.min(REFRESH_MAX_SECONDS, idleSeconds / 3, secondsAway / 4)),
      );
    }
    if (e.state === 'ADMITTED') {
      const pass =
        issued ??
        (await this.store.keepPass(
          e.entryId,
          await this.passes.sign(e.eventId, user.id, e.entryId, e.passExpiresAtMs),
          e.passExpiresAtMs,
        ));
      if (pass) {
        view.pass = pass;
        view.passExpiresAt = new Date(e.passExpiresAtMs).toISOString();
        view.refreshAfterSeconds = REFRESH_MAX_SECONDS;
      }
    }
    return view;
  }
}
