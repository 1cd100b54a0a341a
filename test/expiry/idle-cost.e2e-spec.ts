/**
 * An idle seat-api costs Redis next to nothing, with 64 shards: the sweeper reads one wake index per tick
 * instead of every shard, the relay reads no stream nothing was written to, and the leases of every owned
 * shard are renewed in one script call per rebalance. Commands are counted by the Redis the instance alone
 * uses (a private redis-server, INFO commandstats), per tick or per heartbeat: never per second.
 */
import Redis from 'ioredis';
import { SchedulerRegistry } from '@nestjs/schedule';
import { OutboxRelayService } from '../../apps/seat-api/src/outbox/outbox-relay.service';
import { ShardOwnership } from '../../apps/seat-api/src/shards/shard-ownership.service';
import { SweeperService } from '../../apps/seat-api/src/expiry/sweeper.service';
import { INSTANCES_KEY } from '../../apps/seat-api/src/hold-store';
import { eventually } from '@test/support/eventually';
import { PrivateRedis, startPrivateRedis } from '@test/support/private-redis';
import { Api, createEvent, startApi } from '@test/support/seat-api';

jest.setTimeout(120_000);

const SHARDS = 64;
let redis: PrivateRedis;
let api: Api;

beforeAll(async () => {
  redis = await startPrivateRedis();
  api = await startApi({
    REDIS_URL: redis.url,
    SWEEPER_ENABLED: 'true',
    HOLD_SHARDS: String(SHARDS),
    HOLD_SHARD_LEASE_MS: '2000',
  });
  // the test drives the sweeper, the relay and the reconciler itself: only the rebalances run on their own
  const timers = api.app.get(SchedulerRegistry);
  for (const name of ['hold-sweeper', 'outbox-relay', 'confirm-reconciler']) {
    timers.deleteInterval(name);
  }
  await createEvent(api, 1, 5);
  await eventually(
    () => api.app.get(ShardOwnership).ownedShards().length === SHARDS,
    30_000,
    'every shard owned by the one instance',
  );
});
afterAll(async () => {
  await api?.close();
  await redis?.stop();
});

/** Calls per command so far, the test's own reads (INFO, ZSCORE) left out. */
async function calls(client: Redis): Promise<Map<string, number>> {
  const info = await client.info('commandstats');
  return new Map(
    [...info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)]
      .filter((m) => m[1] !== 'info' && m[1] !== 'zscore')
      .map((m) => [m[1], Number(m[2])]),
  );
}

const total = (before: Map<string, number>, after: Map<string, number>) =>
  [...after].reduce((n, [c, v]) => n + v - (before.get(c) ?? 0), 0);

it('ten idle ticks of the sweeper and the relay send fewer Redis commands than there are shards', async () => {
  const sweeper = api.app.get(SweeperService);
  const relay = api.app.get(OutboxRelayService);
  // the first tick sweeps the shards just taken over and measures their streams: not idle yet
  await sweeper.tick();
  await relay.tick();
  const before = await calls(redis.client);
  for (let i = 0; i < 10; i++) {
    await sweeper.tick();
    await relay.tick();
  }
  const after = await calls(redis.client);
  expect(total(before, after)).toBeLessThan(SHARDS);
  // nothing was due: no shard was swept, no stream was read
  expect((after.get('fcall') ?? 0) - (before.get('fcall') ?? 0)).toBe(0);
  expect((after.get('xlen') ?? 0) - (before.get('xlen') ?? 0)).toBe(0);
});

it('holding 64 shard leases costs fewer commands per heartbeat than there are shards', async () => {
  const ownership = api.app.get(ShardOwnership);
  const beat = async () =>
    Number(
      await redis.client.zscore(
        `${process.env.REDIS_KEY_PREFIX ?? ''}${INSTANCES_KEY}`,
        ownership.instanceId,
      ),
    );
  // a window of three heartbeats (each rebalance beats, then renews), whatever time they take
  const first = await beat();
  await eventually(async () => (await beat()) > first, 10_000, 'a heartbeat');
  const start = await beat();
  const before = await calls(redis.client);
  let beats = 0;
  let last = start;
  await eventually(
    async () => {
      const now = await beat();
      if (now > last) {
        beats++;
        last = now;
      }
      return beats >= 3;
    },
    20_000,
    'three more heartbeats',
  );
  const after = await calls(redis.client);
  expect(ownership.ownedShards()).toHaveLength(SHARDS);
  expect(total(before, after) / 3).toBeLessThan(SHARDS);
});
