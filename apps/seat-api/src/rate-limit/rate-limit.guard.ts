import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail, ThrottlerOptions } from '@nestjs/throttler';
import { AuthUser } from '../auth/auth-user';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { RATE_LIMIT } from './rate-limit.decorator';
import { SyncedThrottlerStorage } from './synced-throttler.storage';

type TrackedRequest = { user?: AuthUser; ip?: string };

/**
 * Per user when the request carried a valid token, else per client address: who a caller is, for the
 * limits here and the seat map's streams per caller.
 */
export const trackerOf = (req: TrackedRequest): string =>
  req.user ? `user:${req.user.id}` : `ip:${req.ip ?? 'unknown'}`;

/** Route metadata the library's own decorators set (@SkipThrottle, @Throttle): keys start so. */
const LIBRARY_METADATA = 'THROTTLER:';
const usesLibraryMetadata = (target: object) =>
  Reflect.getMetadataKeys(target).some((k) => typeof k === 'string' && k.startsWith(LIBRARY_METADATA));

type NamedThrottler = ThrottlerOptions & { name: string; limit: number; ttl: number };

/**
 * How a route is limited: by the one throttler its @RateLimited names, or as the library decides.
 * `counterId` is set when the count can be taken right here (see canActivate): the storage's id of the
 * route's counters, the caller's tracker still to be appended.
 */
type Plan = { throttler: NamedThrottler; counterId?: string } | 'none' | 'library';

/**
 * @nestjs/throttler's guard, keyed per caller: the user when the request carried a valid token (the JWT
 * guard, registered first, has set `req.user`), else the client address. Over the limit it answers 429
 * `RATE_LIMITED` in the one error envelope, with a plain `Retry-After` (the library would name the header
 * after the throttler, which no client reads).
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  /** Handler → its plan; route metadata is fixed once the app is built. */
  private readonly plans = new WeakMap<object, { cls: object; plan: Plan }>();

  /**
   * The library asks every throttler, on every request, for six pieces of route metadata through the
   * Reflector and awaits each value (about twenty metadata reads and a dozen promises per request), only
   * to find the one throttler the route names. Here that throttler is found once per handler, by its
   * @RateLimited name, and counted as the library's handleRequest counts (countHere; handleRequest itself
   * when this guard cannot count alike). The other throttlers apply only to routes naming them: each has
   * a skipIf saying so (rate-limit.module.ts). A route carrying the library's own decorators, a throttler
   * whose limit or ttl is a function, or one without a skipIf, is left to the library's canActivate.
   * What this saves a hold, and why the copy stays: docs/adr/0008-hold-path-shortcuts.md.
   */
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const plan = this.planOf(context.getHandler(), context.getClass());
    if (plan === 'library') {
      return super.canActivate(context);
    }
    // the library's precedence: the throttler's own skipIf, else the module-wide one
    const skipIf = plan === 'none' ? undefined : (plan.throttler.skipIf ?? this.commonOptions.skipIf);
    if (plan === 'none' || skipIf?.(context)) {
      return true;
    }
    const { throttler, counterId } = plan;
    if (counterId !== undefined) {
      return this.countHere(context, throttler, counterId);
    }
    return this.handleRequest({
      context,
      limit: throttler.limit,
      ttl: throttler.ttl,
      blockDuration: (throttler.blockDuration as number | undefined) ?? throttler.ttl,
      throttler,
      getTracker: this.commonOptions.getTracker!,
      generateKey: this.commonOptions.generateKey!,
    });
  }

  /**
   * What the library's handleRequest does for this guard's own tracker and key with SyncedThrottlerStorage
   * and no headers or user-agent exemptions (planOf checks each), without its promises: the tracker, the
   * key and the count are all known synchronously (the storage counts in memory). Same key, same count,
   * same refusal.
   */
  private countHere(
    context: ExecutionContext,
    throttler: NamedThrottler,
    counterId: string,
  ): boolean | Promise<boolean> {
    const tracker = trackerOf(context.switchToHttp().getRequest<TrackedRequest>());
    const { limit, ttl } = throttler;
    const storage = this.storageService as SyncedThrottlerStorage;
    const r = storage.count(counterId + tracker, ttl, limit, throttler.name);
    if (!r.isBlocked) {
      return true;
    }
    const key = this.generateKey(context, tracker);
    return this.throwThrottlingException(context, { limit, ttl, key, tracker, ...r }).then(() => true);
  }

  private planOf(handler: object, cls: object): Plan {
    const known = this.plans.get(handler);
    if (known?.cls === cls) {
      return known.plan;
    }
    const name: unknown = Reflect.getMetadata(RATE_LIMIT, handler);
    const throttler = this.throttlers.find((t) => t.name === name);
    // rate-limit.module.ts gives every throttler a skipIf that applies it only to routes naming it; a
    // throttler without one would apply to every route, which only the library's loop does
    const eachNamed = this.throttlers.every((t) => t.skipIf) || this.commonOptions.skipIf;
    const plan: Plan =
      !eachNamed ||
      usesLibraryMetadata(handler) ||
      usesLibraryMetadata(cls) ||
      (throttler && (typeof throttler.limit !== 'number' || typeof throttler.ttl !== 'number')) ||
      (throttler?.blockDuration !== undefined && typeof throttler.blockDuration !== 'number')
        ? 'library'
        : throttler
          ? this.namedPlan(throttler as NamedThrottler, handler, cls)
          : 'none';
    this.plans.set(handler, { cls, plan });
    return plan;
  }

  /** The count is taken here when nothing the library would do differs: see countHere. */
  private namedPlan(throttler: NamedThrottler, handler: object, cls: object): Plan {
    const own =
      this.storageService instanceof SyncedThrottlerStorage &&
      (Array.isArray(this.options) || (!this.options.getTracker && !this.options.generateKey)) &&
      !throttler.getTracker &&
      !throttler.generateKey &&
      !(throttler.ignoreUserAgents ?? this.commonOptions.ignoreUserAgents) &&
      (throttler.setHeaders ?? this.commonOptions.setHeaders ?? true) === false;
    if (!own) {
      return { throttler };
    }
    // the storage's id of a counter: `<throttler>:<key>`, the key as generateKey makes it
    const keyPrefix = this.generateKey(
      { getClass: () => cls, getHandler: () => handler } as ExecutionContext,
      '',
    );
    return { throttler, counterId: SyncedThrottlerStorage.counterId(throttler.name, keyPrefix) };
  }

  protected override getTracker(req: TrackedRequest): Promise<string> {
    return Promise.resolve(trackerOf(req));
  }

  /**
   * The library's key is a sha256 of `<class>-<handler>-<throttler>-<tracker>`, hashed on every request
   * for a storage that would hash it again. SyncedThrottlerStorage keeps keys in memory and puts them in
   * Redis key names (prefixed with the throttler's name), so the plain string does: same parts, same
   * meaning, one count per route and caller.
   */
  protected override generateKey(context: ExecutionContext, tracker: string): string {
    return `${context.getClass().name}-${context.getHandler().name}-${tracker}`;
  }

  protected override throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw new DomainError(
      ErrorCode.RATE_LIMITED,
      `Too many requests: at most ${detail.limit} per ${Math.round(detail.ttl / 1000)} s; retry after ${detail.timeToBlockExpire} s`,
      { retryAfterSeconds: detail.timeToBlockExpire },
    );
  }
}
