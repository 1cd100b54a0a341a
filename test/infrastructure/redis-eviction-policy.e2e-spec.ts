/**
 * Any maxmemory-policy but noeviction lets Redis drop locks, holds and fence counters under memory
 * pressure. The service warns at boot and reports Redis as degraded on /health (still ready: refusing
 * to serve would not give the data back), reading the policy with CONFIG GET, or from INFO memory where a
 * managed Redis disables CONFIG. Private redis-servers: the shared one runs with noeviction.
 */
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import Redis from 'ioredis';
import { readMaxmemoryPolicy } from '@app/redis';
import { createSeatApi } from '../../apps/seat-api/src/bootstrap/create-app';
import { eventually } from '@test/support/eventually';
import { PrivateRedis, startPrivateRedis } from '@test/support/private-redis';

jest.setTimeout(60_000);

const started: PrivateRedis[] = [];
async function privateRedis(args: string[]): Promise<PrivateRedis> {
  const r = await startPrivateRedis(args);
  started.push(r);
  return r;
}

afterAll(async () => {
  for (const r of started) {
    await r.stop();
  }
});

it('warns at boot and reports Redis as degraded (still 200) under allkeys-lru, and ok once the policy is noeviction', async () => {
  const redis = await privateRedis(['--maxmemory-policy', 'allkeys-lru']);
  const warn = jest.spyOn(Logger.prototype, 'warn');
  process.env.REDIS_URL = redis.url;
  process.env.SWEEPER_ENABLED = 'false';
  const app: NestFastifyApplication = await createSeatApi();
  try {
    await app.listen(0, '127.0.0.1');
    const warnings = warn.mock.calls.map((c) => String(c[0]));
    expect(warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/maxmemory-policy.*allkeys-lru/)]),
    );
    const res = await fetch(`${await app.getUrl()}/health`);
    const body = (await res.json()) as { status: string; details: Record<string, Record<string, unknown>> };
    expect(res.status).toBe(200);
    expect(body.status).toBe('degraded');
    expect(body.details.redis).toMatchObject({ status: 'degraded', maxmemoryPolicy: 'allkeys-lru' });
    expect(body.details.redis.message).toEqual(expect.stringMatching(/noeviction/));

    // checked on every call, not only at boot: an operator's fix shows without a restart
    await redis.client.config('SET', 'maxmemory-policy', 'noeviction');
    await eventually(
      async () =>
        ((await (await fetch(`${await app.getUrl()}/health`)).json()) as { status: string }).status === 'ok',
      10_000,
      'health ok after CONFIG SET',
    );
  } finally {
    warn.mockRestore();
    await app.close();
  }
});

it('reads the policy from INFO memory where CONFIG is disabled, and says unknown when neither answers', async () => {
  const redis = await privateRedis(['--maxmemory-policy', 'volatile-lru']);
  expect(await readMaxmemoryPolicy(redis.client)).toBe('volatile-lru');
  // as on managed Redis: users that may not run CONFIG, or neither CONFIG nor INFO
  await redis.client.acl('SETUSER', 'noconfig', 'on', '>pw', '~*', '+@all', '-config');
  await redis.client.acl('SETUSER', 'blind', 'on', '>pw', '~*', '+@all', '-config', '-info');
  const as = (username: string) =>
    // no ready check: ioredis's is an INFO, which the blind user may not run
    new Redis(redis.url, { username, password: 'pw', enableReadyCheck: false, lazyConnect: true });
  const noConfig = as('noconfig');
  const blind = as('blind');
  try {
    await Promise.all([noConfig.connect(), blind.connect()]);
    await expect(noConfig.config('GET', 'maxmemory-policy')).rejects.toThrow(/NOPERM/);
    expect(await readMaxmemoryPolicy(noConfig)).toBe('volatile-lru');
    await expect(blind.info('memory')).rejects.toThrow(/NOPERM/);
    expect(await readMaxmemoryPolicy(blind)).toBe('unknown');
  } finally {
    noConfig.disconnect();
    blind.disconnect();
  }
});
