import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import Redis from 'ioredis';
import { REDIS_CLIENT } from '@app/redis';

const DAY_MS = 24 * 3600 * 1000;
/** How long a claim may stay in flight before another request may take it over (a crashed instance). */
const IN_FLIGHT_MS = 30_000;

/**
 * Claims an Idempotency-Key atomically: NEW (go ahead), IN_PROGRESS (a duplicate is still running),
 * MISMATCH (same key, other request), or DONE with the stored status and body.
 * KEYS[1] = key; ARGV[1] = request fingerprint, ARGV[2] = in-flight ms.
 */
const CLAIM = `
local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], 'P|' .. ARGV[1], 'PX', ARGV[2])
  return { 'NEW' }
end
local state, fp, rest = string.match(v, '^(%a)|([^|]*)|?(.*)$')
if fp ~= ARGV[1] then return { 'MISMATCH' } end
if state == 'P' then return { 'IN_PROGRESS' } end
return { 'DONE', rest }
`;

export type Claim =
  { state: 'NEW' | 'IN_PROGRESS' | 'MISMATCH' } | { state: 'DONE'; status: number; body: unknown };

@Injectable()
export class IdempotencyService {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {
    if (!('idemClaim' in redis)) {
      redis.defineCommand('idemClaim', { numberOfKeys: 1, lua: CLAIM });
    }
  }

  fingerprint(parts: unknown): string {
    return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
  }

  async claim(userId: string, key: string, fingerprint: string): Promise<Claim> {
    const run = (this.redis as unknown as { idemClaim: (...a: unknown[]) => Promise<string[]> }).idemClaim;
    const [state, stored] = await run.call(this.redis, this.keyOf(userId, key), fingerprint, IN_FLIGHT_MS);
    if (state === 'DONE') {
      const { status, body } = JSON.parse(stored) as { status: number; body: unknown };
      return { state, status, body };
    }
    return { state: state as 'NEW' | 'IN_PROGRESS' | 'MISMATCH' };
  }

  /** Stores the first answer for 24 h (client errors included: replaying them is the point). */
  async complete(
    userId: string,
    key: string,
    fingerprint: string,
    status: number,
    body: unknown,
  ): Promise<void> {
    await this.redis.set(
      this.keyOf(userId, key),
      `D|${fingerprint}|${JSON.stringify({ status, body })}`,
      'PX',
      DAY_MS,
    );
  }

  /** Answers that must not be replayed (busy, dependency down, 5xx): the key becomes free again. */
  async abandon(userId: string, key: string): Promise<void> {
    await this.redis.del(this.keyOf(userId, key));
  }

  private keyOf(userId: string, key: string): string {
    return `idem:{${userId}}:${key}`;
  }
}
