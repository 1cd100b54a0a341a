import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { QueueStore } from '../hold-store';
import { queueAdmitted, queueStepFailures, queueWait } from './queue.metrics';
import { QueueStatus, QueueStatusCache } from './queue-status.cache';

/** Steps in a row that found no queue before an event leaves the list of queues (see forgetMissing). */
const MISSES_BEFORE_FORGET = 20;
/** How often the list of events with a queue is read again: a new queue is stepped within this. */
const LIST_EVERY_MS = 1000;

/**
 * Every instance steps every event's queue every QUEUE_STEP_MS (QueueStore.step, queue-tick.lua): what a
 * step admits follows from the Redis time passed since the last step of any instance, so instances need no
 * leases or leader, and a queue goes on at its pace while any one of them runs (an instance killed
 * mid-sale takes nothing with it). Each step's figures refresh this instance's QueueStatusCache. The list
 * of events with a queue is read once a second; an instance with no queue to step reads only that.
 */
@Injectable()
export class QueueAdmission implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Queue');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private failing = false;
  /** Consecutive steps that found no queue, by event. */
  private readonly misses = new Map<string, number>();
  /** The events listed with a queue when last read, and when (an idle instance reads the list only). */
  private listed: string[] = [];
  private listedAt = 0;

  constructor(
    private readonly store: QueueStore,
    private readonly statuses: QueueStatusCache,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.running ??= this.round().finally(() => (this.running = undefined));
    }, this.config.queue.stepMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /**
   * One step of the event's queue now, its status refreshed here: for a read of an event this instance
   * has no status of yet. Null when the event has no queue.
   */
  async step(eventId: string): Promise<QueueStatus | null> {
    const stepped = await this.store.step(eventId);
    if (stepped) {
      queueAdmitted.inc({ event: eventId }, stepped.waitsMs.length);
      stepped.waitsMs.forEach((ms) => queueWait.observe(ms / 1000));
    }
    return this.statuses.update(eventId, stepped?.figures ?? null);
  }

  private async round(): Promise<void> {
    try {
      if (Date.now() - this.listedAt >= LIST_EVERY_MS) {
        this.listed = await this.store.queuedEvents();
        this.listedAt = Date.now();
      }
      const events = this.listed;
      for (const eventId of new Set([...events, ...this.statuses.events()])) {
        const status = await this.step(eventId);
        await this.forgetMissing(eventId, status === null && events.includes(eventId));
      }
      if (this.failing) {
        this.logger.log('queue steps reach Redis again');
        this.failing = false;
      }
    } catch (e) {
      queueStepFailures.inc();
      if (!this.failing) {
        this.logger.warn(`queue steps fail (admission waits for Redis): ${String(e)}`);
        this.failing = true;
      }
    }
  }

  /**
   * An event listed as queued whose queue is gone (closed, or removed with the event) leaves the list;
   * only after several steps in a row, since a queue being set up is listed a moment before it exists.
   */
  private async forgetMissing(eventId: string, missing: boolean): Promise<void> {
    if (!missing) {
      this.misses.delete(eventId);
      return;
    }
    const n = (this.misses.get(eventId) ?? 0) + 1;
    this.misses.set(eventId, n);
    if (n >= MISSES_BEFORE_FORGET) {
      this.misses.delete(eventId);
      await this.store.forget(eventId);
    }
  }
}
