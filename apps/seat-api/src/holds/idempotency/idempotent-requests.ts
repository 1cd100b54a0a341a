import { Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthUser } from '../../auth/auth-user';
import { DomainError } from '../../common/errors/domain-error';
import { ErrorCode } from '../../common/errors/error-code';
import { httpStatusOf } from '../../common/errors/error-http';
import { replyLost } from '../unanswered-holds';
import { Claim, IdempotencyService, KeyClaim } from './idempotency.service';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

/** JSON with object keys sorted: two bodies that differ only in key order are the same request. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/**
 * `Idempotency-Key` for the routes that run their work through `run` (documented by @ApiIdempotencyKey),
 * per user for 24 h: the same key with the same request (route, canonical path parameters, body) replays
 * the first answer (header `idempotent-replayed: true`); the same key with another request is 422
 * IDEMPOTENCY_KEY_REUSED; a duplicate while the first still runs is 409 IDEMPOTENCY_IN_PROGRESS. A refusal
 * (4xx but 400) is the first answer and is replayed like a success; a 400 (malformed input) and a 5xx
 * (busy, a dependency down) say nothing about what became of the request, so the key is not kept. Without
 * the header the work runs as it would anyway.
 *
 * A call the handler makes, not a Nest interceptor: an interceptor wraps every request of its routes in
 * rxjs observables and an AsyncResource, with or without the header; here a request without the header
 * costs one header lookup.
 */
@Injectable()
export class IdempotentRequests {
  private readonly logger = new Logger('Idempotency');
  constructor(private readonly idempotency: IdempotencyService) {}

  /**
   * Runs `work` once per key. It answers what `work` returns, or a replay: the stored JSON of the first
   * answer (the route's own body, or a refusal's envelope with its status). The answer's status is read from the reply after `work`: Nest set the
   * route's code before the handler ran, and a handler that chooses its own (confirm: 201 new, 200
   * replay) has set that.
   *
   * `params` are the route's path parameters as the handler got them from its pipes (an event id in
   * lower case), not as the client spelled them: a retry that writes the event id in another letter case
   * is the same request, and must replay the first answer rather than be refused as another request.
   * `work` is given a short name of the key (a digest, 16 chars) when the request has one: a change Redis
   * may have made though the request was answered 5xx (the key then freed) can recognise its own retry.
   */
  run<T>(
    req: FastifyRequest & { user?: AuthUser },
    reply: FastifyReply,
    params: Record<string, string>,
    work: (requestKey?: string) => Promise<T>,
  ): Promise<T> {
    const key = req.headers['idempotency-key'];
    // without the header: `work`'s own promise, not one more async frame around it
    return key === undefined || !req.user ? work() : this.runOnce(req, req.user, key, params, reply, work);
  }

  private async runOnce<T>(
    req: FastifyRequest,
    user: AuthUser,
    key: string | string[],
    params: Record<string, string>,
    reply: FastifyReply,
    work: (requestKey: string) => Promise<T>,
  ): Promise<T> {
    if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key)) {
      throw new DomainError(ErrorCode.VALIDATION_FAILED, 'Idempotency-Key is not valid', {
        details: [{ field: 'Idempotency-Key', message: 'must be 1-128 chars of letters, digits, . _ : -' }],
      });
    }
    const fingerprint = this.idempotency.fingerprint(
      canonical({ route: `${req.method} ${req.routeOptions.url}`, params, body: req.body }),
    );
    const mine = this.idempotency.claimOf(user.id, key, fingerprint);
    let claim: Claim;
    try {
      claim = await this.idempotency.claim(mine);
    } catch (e) {
      // a claim whose reply was lost (Redis stalled past the command timeout) is still made when Redis gets
      // to it: left alone, its key would answer 409 IN_PROGRESS to the retry of this 503 until it lapsed.
      // Freed at once: sent on the same connection, so Redis runs it after the late claim
      if (replyLost(e)) {
        await this.free(mine, user.id);
      }
      throw e;
    }
    switch (claim.state) {
      case 'MISMATCH':
        throw new DomainError(
          ErrorCode.IDEMPOTENCY_KEY_REUSED,
          'This Idempotency-Key was used for another request',
        );
      case 'IN_PROGRESS':
        throw new DomainError(
          ErrorCode.IDEMPOTENCY_IN_PROGRESS,
          'A request with this Idempotency-Key is still running',
        );
      case 'DONE':
        void reply.status(claim.status).header('idempotent-replayed', 'true');
        // a replayed refusal names this request, like every error the service sends
        // typed as the route's answer: it is the stored JSON of this route's first answer (its body, or a
        // refusal's envelope, sent with the stored status)
        return (
          claim.status >= 400 && claim.body && typeof claim.body === 'object'
            ? { ...claim.body, requestId: req.id }
            : claim.body
        ) as T;
      case 'NEW':
        break;
    }
    let body: T;
    try {
      body = await work(createHash('sha256').update(key).digest('base64url').slice(0, 16));
    } catch (e) {
      await this.settleFailure(mine, user.id, e);
      throw e;
    }
    await this.remember(mine, user.id, reply.statusCode, body);
    return body;
  }

  /**
   * Stores the answer under the key. If that fails the request's work is done all the same: the client gets
   * its answer, and the key stays "in progress" until its claim lapses (a retry meanwhile is told 409 and
   * cannot repeat the work; freeing the key here would let a retry do it twice).
   */
  private async remember(mine: KeyClaim, userId: string, status: number, body: unknown) {
    try {
      await this.idempotency.complete(mine, status, body);
    } catch (e) {
      this.logger.warn({ msg: 'idempotent answer not stored', userId, error: String(e) });
    }
  }

  private async settleFailure(mine: KeyClaim, userId: string, e: unknown): Promise<void> {
    const status = e instanceof DomainError ? httpStatusOf(e.code) : 500;
    // a 400 says the request was malformed, not what became of it (as the validation pipes' 400s, which
    // come before the handler and so before any key is claimed): freed like a 5xx
    if (e instanceof DomainError && status < 500 && status !== 400) {
      await this.idempotency.complete(mine, status, {
        statusCode: status,
        code: e.code,
        message: e.message,
        ...(e.details ? { errors: e.details } : {}),
      });
    } else {
      await this.free(mine, userId);
    }
  }

  /**
   * Frees the key for a retry (a 5xx or 400 is not the request's answer). If Redis does not answer, the
   * request's own error is still its answer: the free command has gone out behind the claim and runs when
   * Redis does, else the claim lapses after its in-flight time.
   */
  private async free(mine: KeyClaim, userId: string): Promise<void> {
    try {
      await this.idempotency.abandon(mine);
    } catch (e) {
      this.logger.warn({ msg: 'idempotency key not freed', userId, error: String(e) });
    }
  }
}
