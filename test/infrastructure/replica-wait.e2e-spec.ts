/**
 * REDIS_WAIT_REPLICAS on a single Redis (throw-away redis-servers, so INFO commandstats counts only this
 * file's commands): 0 sends no WAIT at all; 1 against a Redis without replicas refuses every change
 * (503 REPLICAS_UNAVAILABLE: a misconfiguration is loud, not silently unsafe); 1 with a replica answers
 * 201 once the replica has the hold; with the replica stopped, concurrent holds share their WAITs instead
 * of queueing one timeout each on the connection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PrivateRedis, startPrivateRedis } from '@test/support/private-redis';
import { eventually } from '@test/support/eventually';
import { Api, createEvent, startApi } from '@test/support/seat-api';
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import { holdRecordKeys } from '@test/support/hold-store';

jest.setTimeout(60_000);

/** Calls of one command since the last CONFIG RESETSTAT (INFO commandstats), 0 when never called. */
async function calls(redis: PrivateRedis, command: string): Promise<number> {
  const stats = await redis.client.info('commandstats');
  return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
}

const apiOn = (redis: PrivateRedis, waitReplicas: number) =>
  startApi({
    REDIS_URL: redis.url,
    REDIS_CLUSTER_NODES: '',
    REDIS_WAIT_REPLICAS: String(waitReplicas),
    RATE_LIMIT_ENABLED: 'false',
  });

describe('REDIS_WAIT_REPLICAS on a single Redis', () => {
  const saved = { ...process.env };
  let master: PrivateRedis;
  let api: Api | undefined;
  // A replica saves the master's snapshot (dump.rdb) in its working directory: never in the checkout,
  // where every later throw-away redis-server would load it.
  const dir = mkdtempSync(path.join(tmpdir(), 'replica-wait-'));

  beforeAll(async () => {
    master = await startPrivateRedis(['--dir', dir]);
  });
  afterEach(async () => {
    await api?.close();
    api = undefined;
    process.env = saved;
  });
  afterAll(async () => {
    await master?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('0 (the default): hold, extend, release and confirm send no WAIT', async () => {
    api = await apiOn(master, 0);
    const eventId = await createEvent(api, 1, 4);
    const alice = await api.token('alice');
    await master.client.config('RESETSTAT');
    const held = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: alice,
      body: { seatIds: ['S-A-1'] },
    });
    const holdId = held.body.holdId as string;
    const other = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: alice,
      body: { seatIds: ['S-A-2'] },
    });
    const statuses = [
      held.status,
      (await api.call('POST', `/v1/holds/${holdId}/extend`, { token: alice, body: { ttlSeconds: 300 } }))
        .status,
      (await api.call('DELETE', `/v1/holds/${holdId}`, { token: alice })).status,
      (
        await api.call('POST', `/v1/holds/${other.body.holdId}/confirm`, {
          token: alice,
          body: { orderId: 'o-1' },
        })
      ).status,
    ];
    expect(statuses).toEqual([201, 200, 204, 201]);
    expect(await calls(master, 'evalsha')).toBeGreaterThanOrEqual(5); // the commandstats did count them
    expect(await calls(master, 'wait')).toBe(0);
  });

  it('1 against a Redis without replicas: every hold is refused 503 REPLICAS_UNAVAILABLE, and the seat stays free', async () => {
    api = await apiOn(master, 1);
    const eventId = await createEvent(api, 1, 4);
    const alice = await api.token('alice');
    await master.client.config('RESETSTAT');
    const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: alice,
      body: { seatIds: ['S-A-1'] },
    });
    expect([r.status, r.body.code]).toEqual([503, 'REPLICAS_UNAVAILABLE']);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await calls(master, 'wait')).toBe(1);
    expect(await api.app.get(HoldStore).seatConflicts(eventId, ['S-A-1'])).toEqual([]);
  });

  describe('with a replica', () => {
    let replica: PrivateRedis;
    let replicaPid: number | undefined;

    beforeAll(async () => {
      replica = await startPrivateRedis(['--dir', dir, '--replicaof', '127.0.0.1', String(master.port)]);
      await eventually(
        async () => /master_link_status:up/.test(await replica.client.info('replication')),
        10_000,
        'replica in sync',
      );
    });
    afterAll(async () => {
      if (replicaPid) {
        process.kill(replicaPid, 'SIGCONT');
      }
      await replica?.stop();
    });

    it('1: a hold answered 201 is on the replica', async () => {
      api = await apiOn(master, 1);
      const store = api.app.get(HoldStore);
      const eventId = await createEvent(api, 1, 4);
      const alice = await api.token('alice');
      const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
        token: alice,
        body: { seatIds: ['S-A-1'] },
      });
      expect(r.status).toBe(201);
      // read at once from the replica, as a promoted replica would answer
      const [records] = await holdRecordKeys(replica.client, store, eventId, process.env.REDIS_KEY_PREFIX);
      expect(await replica.client.hlen(records)).toBe(1);
    });

    it('1 with the replica stopped: 20 concurrent holds are all refused 503 REPLICAS_UNAVAILABLE, sharing a few WAITs', async () => {
      api = await apiOn(master, 1);
      const eventId = await createEvent(api, 1, 20);
      replicaPid = Number(/process_id:(\d+)/.exec(await replica.client.info('server'))![1]);
      process.kill(replicaPid, 'SIGSTOP');
      await master.client.config('RESETSTAT');
      const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => api!.token(`user-${i}`)));
      const answers = await Promise.all(
        tokens.map((token, i) =>
          api!.call('POST', `/v1/events/${eventId}/holds`, { token, body: { seatIds: [`S-A-${i + 1}`] } }),
        ),
      );
      process.kill(replicaPid, 'SIGCONT');
      replicaPid = undefined;
      // One WAIT per hold would block the connection one timeout each, one after the other: past the
      // command timeout the later ones (and any command queued behind them) would fail as Redis errors.
      expect(answers.map((a) => a.body.code)).toEqual(Array(20).fill('REPLICAS_UNAVAILABLE'));
      expect(await calls(master, 'wait')).toBeLessThanOrEqual(4);
    });
  });
});
