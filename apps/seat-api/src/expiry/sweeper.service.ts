import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '@app/config';
import { DistributedLock } from '@app/distributed-lock';
import { HoldStore } from '../holds/store';
import { seatsExpired, sweepDuration } from './expiry.metrics';
import { settleWithin } from './settle-within';
import { StuckConfirms } from './stuck-confirms';

/** A sweep never runs away with Redis: at most this many batches per event per tick. */
const MAX_BATCHES_PER_EVENT = 50;

/**
 * Every SWEEP_INTERVAL_MS, on every instance: frees the seats of holds whose expireAt passed and records
 * their SeatExpired events (one Lua call per batch, see holds/store/lua/sweep.lua.ts). The lock only
 * saves work when several instances tick together; correctness comes from the script's own re-checks.
 * Sweeping touches Redis only: confirms found stuck past their deadline are recorded for the confirm
 * reconciler, which decides them from PostgreSQL on its own schedule, so a slow or locked PostgreSQL
 * never delays freeing the seats of other holds and events.
 */
@Injectable()
export class SweeperService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Sweeper');
  private running = false;
  /** The tick in progress, so shutdown can let it finish before Redis and PostgreSQL close. */
  private current?: Promise<void>;
  private failing = false;
  readonly lockLeaseMs: number;

  constructor(
    private readonly store: HoldStore,
    private readonly stuckConfirms: StuckConfirms,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
  ) {
    this.lockLeaseMs = Math.max(5000, config.expiry.sweepIntervalMs * 5);
  }

  onApplicationBootstrap(): void {
    if (!this.config.expiry.sweeperEnabled) {
      this.logger.log('sweeper disabled (SWEEPER_ENABLED=false)');
      return;
    }
    const timer = setInterval(() => void this.tick(), this.config.expiry.sweepIntervalMs);
    this.scheduler.addInterval('hold-sweeper', timer);
  }

  /** Before any connection closes (onApplicationShutdown is too late): no new tick, the running one ends. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.scheduler.doesExist('interval', 'hold-sweeper')) {
      this.scheduler.deleteInterval('hold-sweeper');
    }
    await settleWithin(this.current, 10_000);
  }

  /** One tick; never overlaps itself in this process. Errors are logged once per outage, not per tick. */
  tick(): Promise<void> {
    if (this.running) {
      return Promise.resolve();
    }
    this.running = true;
    this.current = this.runTick();
    return this.current;
  }

  private async runTick(): Promise<void> {
    try {
      await this.sweepAll();
      if (this.failing) {
        this.logger.log('sweeping again');
        this.failing = false;
      }
    } catch (e) {
      if (!this.failing) {
        this.logger.error(`sweep failed, will retry every tick: ${(e as Error).message}`);
        this.failing = true;
      }
    } finally {
      this.running = false;
    }
  }

  @DistributedLock({
    key: () => 'hold-sweeper',
    leaseMs: (s: SweeperService) => s.lockLeaseMs,
    onContention: 'skip',
  })
  async sweepAll(): Promise<number> {
    const end = sweepDuration.startTimer();
    let freed = 0;
    for (const eventId of await this.store.listEvents()) {
      for (let batch = 0; batch < MAX_BATCHES_PER_EVENT; batch++) {
        const r = await this.store.sweepEvent(eventId, this.config.expiry.sweepBatchSize);
        freed += r.expiredSeats;
        await this.stuckConfirms.add(r.stuckConfirming);
        if (!r.more) {
          break;
        }
      }
    }
    end();
    if (freed > 0) {
      seatsExpired.inc(freed);
      this.logger.debug(`freed ${freed} expired seat(s)`);
    }
    return freed;
  }
}
