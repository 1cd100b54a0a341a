import { CanActivate, ExecutionContext, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { webcrypto } from 'node:crypto';
import { jwtVerify } from 'jose';
import { AppConfig } from '@app/config';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { meteredLru } from '../common/cache/metered-lru';
import { IS_PUBLIC, REQUIRED_ROLES } from './auth.decorators';
import type { AuthUser } from './auth-user';
import { hasRole } from './roles';

/** What a user id (a token's `sub`, a customer id staff name) may be. */
export const USER_ID = /^[A-Za-z0-9._@:-]{1,128}$/;
/**
 * Verified tokens remembered (a client sends the same token with every request of its session): at most
 * this many, and at most this many estimated bytes (a token can be as long as the header limit allows).
 */
export const VERIFIED_CACHE_MAX_ENTRIES = 10_000;
export const VERIFIED_CACHE_MAX_BYTES = 16 * 1024 * 1024;
/** The token string, its decoded claims and the entry: roughly twice the token, plus a fixed part. */
const verifiedBytes = (token: string): number => 2 * token.length + 512;

interface Verified {
  payload: { sub?: unknown; roles?: unknown };
  /** the caller the token names (toUser), worked out once per token; frozen, as requests share it */
  user: Readonly<AuthUser> | undefined;
  /** when the token stops being valid (its `exp`), ms since the epoch */
  untilMs: number;
}

/** What a route asks of its caller, from its metadata (read once per handler, not per request). */
interface Access {
  cls: unknown;
  isPublic: boolean;
  required: string[];
}

/**
 * Global guard: `Authorization: Bearer <JWT>` signed HS256 with AUTH_JWT_SECRET. `sub` is the user id
 * (the holder of holds; never taken from a request body), `roles` may include `admin` and `agent` (roles.ts).
 */
@Injectable()
export class JwtAuthGuard implements CanActivate, OnModuleDestroy {
  private readonly secret: Uint8Array;
  private readonly issuer?: string;
  private readonly maxLifetimeSeconds: number;
  /**
   * The secret imported once as a WebCrypto key: handing jose the raw bytes makes it import the key on
   * every request.
   */
  private key?: Promise<webcrypto.CryptoKey>;
  /**
   * Token → verified claims until the token's `exp`, least recently used evicted first (memory_cache_*
   * {cache="jwt_verified"} on /metrics). Verifying an HS256 signature costs an HMAC in the crypto thread
   * pool per request; a hit costs a map lookup. Only tokens signed with our secret and accepted get in.
   */
  private readonly verified = meteredLru<string, Verified>({
    name: 'jwt_verified',
    maxBytes: VERIFIED_CACHE_MAX_BYTES,
    maxEntries: VERIFIED_CACHE_MAX_ENTRIES,
  });
  /** Handler → its IS_PUBLIC and REQUIRED_ROLES: route metadata is fixed once the app is built. */
  private readonly access = new WeakMap<object, Access>();

  constructor(
    private readonly reflector: Reflector,
    config: AppConfig,
  ) {
    this.secret = new TextEncoder().encode(config.auth.jwtSecret);
    this.issuer = config.auth.issuer;
    this.maxLifetimeSeconds = config.auth.maxTokenLifetimeSeconds;
  }

  /**
   * Synchronous when the token is in the verified cache (every request of a session but its first): no
   * promise to settle before the next guard runs. Refusals are thrown either way; Nest awaits the guard.
   */
  canActivate(ctx: ExecutionContext): boolean | Promise<boolean> {
    if (ctx.getType() !== 'http') {
      return true;
    }
    const access = this.accessOf(ctx.getHandler(), ctx.getClass());
    const req = ctx
      .switchToHttp()
      .getRequest<{ headers: Record<string, string | undefined>; user?: AuthUser }>();
    const header = req.headers.authorization ?? '';
    const token = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(header)?.[1];
    if (access.isPublic) {
      // open to anyone; a valid token still names the caller, so per-user rate limits apply to it
      // (anonymous callers are limited per address). A bad token is ignored: no token was needed.
      const known = token ? this.cached(token) : undefined;
      if (!token || known) {
        req.user = known?.user;
        return true;
      }
      return this.verify(token).then(
        (v) => {
          req.user = v.user;
          return true;
        },
        () => {
          req.user = undefined;
          return true;
        },
      );
    }
    if (!token) {
      throw new DomainError(ErrorCode.UNAUTHORIZED, 'A Bearer token is required');
    }
    const known = this.cached(token);
    return known
      ? this.admit(req, known.user, access)
      : this.verify(token).then((v) => this.admit(req, v.user, access));
  }

  /** The caller a verified token names, if it may use the route. */
  private admit(req: { user?: AuthUser }, user: Readonly<AuthUser> | undefined, access: Access): true {
    if (!user) {
      throw new DomainError(ErrorCode.UNAUTHORIZED, 'The token has no usable subject');
    }
    req.user = user;
    const required = access.required;
    if (!required.every((r) => hasRole(user.roles, r))) {
      throw new DomainError(ErrorCode.FORBIDDEN, `This needs the role(s): ${required.join(', ')}`);
    }
    return true;
  }

  private accessOf(handler: object, cls: object): Access {
    const known = this.access.get(handler);
    if (known?.cls === cls) {
      return known;
    }
    const targets = [handler, cls] as [() => void, new () => unknown];
    const access: Access = {
      cls,
      isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) ?? false,
      required: this.reflector.getAllAndOverride<string[]>(REQUIRED_ROLES, targets) ?? [],
    };
    this.access.set(handler, access);
    return access;
  }

  /** The token's verified claims while they are cached and the token has not expired. */
  private cached(token: string): Verified | undefined {
    const hit = this.verified.get(token);
    return hit && hit.untilMs > Date.now() ? hit : undefined;
  }

  private async verify(token: string): Promise<Pick<Verified, 'payload' | 'user'>> {
    const hit = this.cached(token);
    if (hit) {
      return hit;
    }
    this.verified.delete(token);
    let payload: Verified['payload'] & { exp?: number };
    try {
      this.key ??= webcrypto.subtle.importKey('raw', this.secret, { name: 'HMAC', hash: 'SHA-256' }, false, [
        'verify',
      ]);
      ({ payload } = await jwtVerify(token, await this.key, {
        algorithms: ['HS256'],
        issuer: this.issuer,
        // without `exp` a token, once copied, would act for its user forever
        requiredClaims: ['exp'],
      }));
    } catch {
      throw new DomainError(ErrorCode.UNAUTHORIZED, 'The token is invalid or expired');
    }
    // jose only checks that exp has not passed: 1e20 is a token for ever. Bounded by how far ahead of now
    // it lies, not by exp - iat (iat is optional, so a token could leave the bound out)
    const untilMs = payload.exp! * 1000;
    if (untilMs - Date.now() > this.maxLifetimeSeconds * 1000) {
      throw new DomainError(
        ErrorCode.UNAUTHORIZED,
        `The token's exp lies more than ${this.maxLifetimeSeconds} s ahead: tokens must be short-lived`,
      );
    }
    const verified = { payload, user: toUser(payload), untilMs };
    this.verified.set(token, verified, { size: verifiedBytes(token) });
    return verified;
  }

  onModuleDestroy(): void {
    this.verified.clear();
  }
}

/** The caller a verified token names, or undefined when its subject is not a usable user id. */
function toUser(payload: Verified['payload']): Readonly<AuthUser> | undefined {
  if (typeof payload.sub !== 'string' || !USER_ID.test(payload.sub)) {
    return undefined;
  }
  const roles = Array.isArray(payload.roles)
    ? payload.roles.filter((r): r is string => typeof r === 'string')
    : [];
  return Object.freeze({ id: payload.sub, roles: Object.freeze(roles) as string[] });
}
