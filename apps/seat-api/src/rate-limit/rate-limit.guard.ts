import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import type { ThrottlerLimitDetail } from '@nestjs/throttler/dist/throttler.guard.interface';
import { AuthUser } from '../auth/auth-user';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';

/**
 * @nestjs/throttler's guard, keyed per caller: the user when the request carried a valid token (the JWT
 * guard, registered first, has set `req.user`), else the client address. Over the limit it answers 429
 * `RATE_LIMITED` in the one error envelope, with a plain `Retry-After` (the library would name the header
 * after the throttler, which no client reads).
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override getTracker(req: { user?: AuthUser; ip?: string }): Promise<string> {
    return Promise.resolve(req.user ? `user:${req.user.id}` : `ip:${req.ip ?? 'unknown'}`);
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
