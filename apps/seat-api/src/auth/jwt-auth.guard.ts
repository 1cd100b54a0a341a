import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { webcrypto } from 'node:crypto';
import { jwtVerify } from 'jose';
import { AppConfig } from '@app/config';
import { ApiError } from '../common/api-error';
import { IS_PUBLIC, REQUIRED_ROLES } from './auth.decorators';
import type { AuthUser } from './auth-user';

const USER_ID = /^[A-Za-z0-9._@:-]{1,128}$/;
/** Verified tokens remembered (a client sends the same token with every request of its session). */
const VERIFIED_CACHE_SIZE = 10_000;

interface Verified {
  payload: { sub?: unknown; roles?: unknown };
  /** when the token stops being valid (its `exp`), ms since the epoch */
  untilMs: number;
}

/**
 * Global guard: `Authorization: Bearer <JWT>` signed HS256 with AUTH_JWT_SECRET. `sub` is the user id
 * (the holder of holds; never taken from a request body), `roles` may include `admin`.
 */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  private readonly secret: Uint8Array;
  private readonly issuer?: string;
  /**
   * The secret imported once as a WebCrypto key: handing jose the raw bytes makes it import the key on
   * every request, which was half the guard's cost (bench:http profile).
   */
  private key?: Promise<webcrypto.CryptoKey>;
  /**
   * Token → verified claims until the token's `exp`, oldest evicted first. Verifying an HS256 signature
   * costs an HMAC in the crypto thread pool per request; a hit costs a map lookup. Tokens without `exp`
   * are never cached, so they are checked every time.
   */
  private readonly verified = new Map<string, Verified>();

  constructor(
    private readonly reflector: Reflector,
    config: AppConfig,
  ) {
    this.secret = new TextEncoder().encode(config.auth.jwtSecret);
    this.issuer = config.auth.issuer;
  }

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (ctx.getType() !== 'http') {
      return true;
    }
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) {
      return true;
    }
    const req = ctx
      .switchToHttp()
      .getRequest<{ headers: Record<string, string | undefined>; user?: AuthUser }>();
    const header = req.headers.authorization ?? '';
    const token = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(header)?.[1];
    if (!token) {
      throw new ApiError(401, 'UNAUTHORIZED', 'A Bearer token is required');
    }
    const payload = await this.verify(token);
    if (typeof payload.sub !== 'string' || !USER_ID.test(payload.sub)) {
      throw new ApiError(401, 'UNAUTHORIZED', 'The token has no usable subject');
    }
    const roles = Array.isArray(payload.roles)
      ? payload.roles.filter((r): r is string => typeof r === 'string')
      : [];
    req.user = { id: payload.sub, roles };
    const required = this.reflector.getAllAndOverride<string[]>(REQUIRED_ROLES, targets) ?? [];
    if (!required.every((r) => roles.includes(r))) {
      throw new ApiError(403, 'FORBIDDEN', `This needs the role(s): ${required.join(', ')}`);
    }
    return true;
  }

  private async verify(token: string): Promise<Verified['payload']> {
    const hit = this.verified.get(token);
    if (hit && hit.untilMs > Date.now()) {
      return hit.payload;
    }
    this.verified.delete(token);
    let payload: Verified['payload'] & { exp?: number };
    try {
      this.key ??= webcrypto.subtle.importKey('raw', this.secret, { name: 'HMAC', hash: 'SHA-256' }, false, [
        'verify',
      ]);
      ({ payload } = await jwtVerify(token, await this.key, { algorithms: ['HS256'], issuer: this.issuer }));
    } catch {
      throw new ApiError(401, 'UNAUTHORIZED', 'The token is invalid or expired');
    }
    if (typeof payload.exp === 'number') {
      if (this.verified.size >= VERIFIED_CACHE_SIZE) {
        this.verified.delete(this.verified.keys().next().value!); // Map iterates oldest first
      }
      this.verified.set(token, { payload, untilMs: payload.exp * 1000 });
    }
    return payload;
  }
}
