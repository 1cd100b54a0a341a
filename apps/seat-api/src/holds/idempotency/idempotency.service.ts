import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { LuaScript, REDIS_CLIENT } from '@app/redis';

const DAY_MS = 24 * 3600 * 1000;
/** How long a claim may stay in flight before another request may take it over (a crashed instance). */
const IN_FLIGHT_MS = 30_000;

export const CLAIM_KEY = new LuaScript(__dirname, {
  file: 'claim-key.lua',
  keys: ['key'],
  argv: ['fingerprint', 'claim', 'inFlightMs'],
} as const);
export const FREE_CLAIM = new LuaScript(__dirname, {
  file: 'free-claim.lua',
  keys: ['key'],
  argv: ['claim'],
} as const);

/**
 * One request's hold on one Idempotency-Key: the Redis key, the request's fingerprint, and the value its
 * claim writes. The value carries a token of its own, so the request can free its claim and only its
 * claim, also when it never learnt whether the claim was made (the reply was lost).
 */
export interface KeyClaim {
  readonly redisKey: string;
  readonly fingerprint: string;
  readonly value: string;
}

export type Claim =
  { state: 'NEW' | 'IN_PROGRESS' | 'MISMATCH' } | { state: 'DONE'; status: number; body: unknown };

@Injectable()
export class IdempotencyService {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  fingerprint(parts: unknown): string {
    return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
  }

  /** This request's claim on `key` (nothing is sent yet). */
  claimOf(userId: string, key: string, fingerprint: string): KeyClaim {
    const token = randomBytes(9).toString('base64url');
    return { redisKey: `idem:{${userId}}:${key}`, fingerprint, value: `P|${fingerprint}|${token}` };
  }

  async claim(c: KeyClaim): Promise<Claim> {
    const [state, stored] = (await CLAIM_KEY.run(
      this.redis,
      { key: c.redisKey },
      { fingerprint: c.fingerprint, claim: c.value, inFlightMs: IN_FLIGHT_MS },
    )) as [string, string];
    if (state === 'DONE') {
      const { status, body } = JSON.parse(stored) as { status: number; body: unknown };
      return { state, status, body };
    }
    return { state: state as 'NEW' | 'IN_PROGRESS' | 'MISMATCH' };
  }

  /** Stores the first answer for 24 h (client errors included: replaying them is the point). */
  async complete(c: KeyClaim, status: number, body: unknown): Promise<void> {
    await this.redis.set(c.redisKey, `D|${c.fingerprint}|${JSON.stringify({ status, body })}`, 'PX', DAY_MS);
  }

  /**
   * Answers that must not be replayed (busy, dependency down, 5xx): the key becomes free again, if it
   * still holds this request's claim.
   */
  async abandon(c: KeyClaim): Promise<void> {
    await FREE_CLAIM.run(this.redis, { key: c.redisKey }, { claim: c.value });
  }
}
