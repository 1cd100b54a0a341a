import { Counter, Gauge, Histogram, Registry, register as globalRegistry } from 'prom-client';

/** Every lock service of the process adds its count of held locks here (read when scraped). */
const sources: (() => number)[] = [];

/** Lock metrics; get-or-create so several Nest apps in one process (tests) share them. */
export class LockMetrics {
  readonly acquisitions: Counter<'result'>;
  readonly contention: Counter;
  readonly waitSeconds: Histogram;
  readonly waits: Counter<'ended'>;
  readonly renewals: Counter<'result'>;
  readonly lost: Counter<'reason'>;
  readonly validityRefused: Counter;
  readonly held: Gauge;

  /** `heldNow` is read at scrape time, so holding and releasing costs no metric update. */
  constructor(registry: Registry = globalRegistry, heldNow: () => number = () => 0) {
    const get = <T>(name: string, make: () => T): T => (registry.getSingleMetric(name) as T) ?? make();
    const registers = [registry];
    this.acquisitions = get(
      'distributed_lock_acquisitions_total',
      () =>
        new Counter({
          name: 'distributed_lock_acquisitions_total',
          help: 'Lock acquisition attempts by outcome (acquired, busy, skipped, answered_by_handler, error, outcome_unknown, expired_on_arrival)',
          labelNames: ['result'],
          registers,
        }),
    );
    this.contention = get(
      'distributed_lock_contention_total',
      () =>
        new Counter({
          name: 'distributed_lock_contention_total',
          help: 'Attempts that found the lock held',
          registers,
        }),
    );
    this.waitSeconds = get(
      'distributed_lock_wait_seconds',
      () =>
        new Histogram({
          name: 'distributed_lock_wait_seconds',
          help: 'Time from asking for a lock to getting it (or giving up)',
          buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
          registers,
        }),
    );
    this.waits = get(
      'distributed_lock_waits_total',
      () =>
        new Counter({
          name: 'distributed_lock_waits_total',
          help: 'Waits between busy attempts, by how they ended: woken (a release in this process) or timer',
          labelNames: ['ended'],
          registers,
        }),
    );
    this.renewals = get(
      'distributed_lock_renewals_total',
      () =>
        new Counter({
          name: 'distributed_lock_renewals_total',
          help: 'Watchdog lease renewals by outcome',
          labelNames: ['result'],
          registers,
        }),
    );
    this.lost = get(
      'distributed_lock_lost_total',
      () =>
        new Counter({
          name: 'distributed_lock_lost_total',
          help: 'Locks whose lease was lost while held, counted when first detected (watchdog, expiry timer, validity check or release)',
          labelNames: ['reason'],
          registers,
        }),
    );
    this.validityRefused = get(
      'distributed_lock_validity_refused_total',
      () =>
        new Counter({
          name: 'distributed_lock_validity_refused_total',
          help: 'Writes refused by assertValid() because the lease was not known to be ours for the safety margin',
          registers,
        }),
    );
    this.held = get(
      'distributed_lock_held',
      () =>
        new Gauge({
          name: 'distributed_lock_held',
          help: 'Locks held by this process now',
          registers,
          collect() {
            this.set(sources.reduce((n, f) => n + f(), 0));
          },
        }),
    );
    sources.push(heldNow);
  }
}
