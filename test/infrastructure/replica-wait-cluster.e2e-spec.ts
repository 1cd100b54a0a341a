/**
 * REDIS_WAIT_REPLICAS on a real Redis Cluster (3 masters + 4 replicas, `scripts/infra.sh cluster up` on
 * REDIS_CLUSTER_PORT): a change is answered only once the replica of the master that owns its slot has
 * it (WAIT routed per slot, on the connection that carried the write), 503 REPLICAS_UNAVAILABLE with
 * Retry-After otherwise, leaving the seat in the state the README describes; and a master killed with
 * `kill -9` under load loses no hold that was answered 201.
 * Without redis-server: skipped, loudly, in the plain run; a failure in the cluster run (redis-cluster-suite).
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { register } from 'prom-client';
import { loadConfig } from '@app/config';
import { connectRedis, createRedisClient, ReplicaAcks, ReplicaAckTimeoutError } from '@app/redis';
import { Cluster } from 'ioredis';
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import {
  clusterPorts,
  masterOfKey,
  onNode,
  pidOf,
  replicasOf,
  syncedReplicaOf,
} from '@test/support/cluster-nodes';
import { eventually } from '@test/support/eventually';
import { failoverUnderLoad } from '@test/support/failover-load';
import { redisClusterSuite } from '@test/support/redis-cluster-suite';
import { Api, createEvent, startApi } from '@test/support/seat-api';

jest.setTimeout(180_000);

const root = path.resolve(__dirname, '..', '..');
const ports = clusterPorts();
const seeds = ports
  .slice(0, 3)
  .map((p) => `127.0.0.1:${p}`)
  .join(',');
const prefix = process.env.REDIS_KEY_PREFIX!;
const suite = redisClusterSuite('replica-wait-cluster.e2e-spec');

const clusterUp = () =>
  execFileSync('bash', [path.join(root, 'scripts', 'infra.sh'), 'cluster', 'up'], { stdio: 'inherit' });

const clusterApiEnv = (waitReplicas: number) => ({
  REDIS_URL: '',
  REDIS_CLUSTER_NODES: seeds,
  REDIS_WAIT_REPLICAS: String(waitReplicas),
  RATE_LIMIT_ENABLED: 'false',
  HOLD_MAX_SEATS_PER_USER: '10000',
});

/** The master port serving an event's keys (every key of an event shares its shard's slot). */
async function masterOfEvent(store: HoldStore, eventId: string, from = ports[0]): Promise<number> {
  const port = await masterOfKey(`${prefix}${store.layout.eventKeys(eventId).holds}`, from);
  if (port === undefined) {
    throw new Error(`no master serves event ${eventId}`);
  }
  return port;
}

/** Events until one lives on a master other than each of `avoid`. */
async function eventOnAnotherMaster(api: Api, store: HoldStore, avoid: number[]) {
  for (;;) {
    const eventId = await createEvent(api, 2, 10);
    const master = await masterOfEvent(store, eventId);
    if (!avoid.includes(master)) {
      return { eventId, master };
    }
  }
}

async function ackTimeouts(action: string): Promise<number> {
  const metric = register.getSingleMetric('redis_replica_ack_timeouts_total');
  const values = metric ? (await metric.get()).values : [];
  return values.find((v) => v.labels.action === action)?.value ?? 0;
}

suite('REDIS_WAIT_REPLICAS on a Redis Cluster', () => {
  const saved = { ...process.env };
  beforeAll(() => clusterUp());
  afterAll(() => {
    process.env = saved;
  });

  it("sends WAIT to the master of the write's slot only, and counts a write whose slot changed owner as unconfirmed", async () => {
    const client = createRedisClient({
      ...loadConfig({ ...process.env, ...clusterApiEnv(1) }).redis,
      name: 'wait-test',
    });
    await connectRedis(client);
    try {
      const acks = new ReplicaAcks(client, { replicas: 1, timeoutMs: 400 });
      const key = '{wait-route}:k';
      const owner = (await masterOfKey(`${prefix}${key}`, ports[0]))!;
      const waits = () =>
        Promise.all(
          ports.map((p) =>
            onNode(p, async (r) => /cmdstat_wait:calls=(\d+)/.exec(await r.info('commandstats'))?.[1] ?? '0'),
          ),
        );
      const before = await waits();
      const ticket = acks.before(key);
      await client.set(key, 'v', 'PX', 60_000);
      await ticket.confirm('test');
      const after = await waits();
      const sentTo = ports.filter((_, i) => after[i] !== before[i]);
      expect(sentTo).toEqual([owner]);

      // what a MOVED does: the client learns another owner between the write and its WAIT
      const moved = acks.before(key);
      await client.set(key, 'w', 'PX', 60_000);
      const slot = Number(await onNode(owner, (r) => r.call('CLUSTER', 'KEYSLOT', `${prefix}${key}`)));
      (client as Cluster).slots[slot] = ['127.0.0.1:1'];
      await expect(moved.confirm('test')).rejects.toBeInstanceOf(ReplicaAckTimeoutError);
    } finally {
      client.disconnect();
    }
  });

  describe('a replica that does not answer', () => {
    let api: Api;
    let store: HoldStore;
    let stoppedPids: number[] = [];

    beforeAll(async () => {
      api = await startApi(clusterApiEnv(1));
      store = api.app.get(HoldStore);
    });
    afterAll(async () => {
      stoppedPids.forEach((pid) => process.kill(pid, 'SIGCONT'));
      await api?.close();
    });

    it('is answered 503 REPLICAS_UNAVAILABLE with Retry-After; the seats are as the README says, and a retry once it answers succeeds', async () => {
      const alice = await api.token('alice');
      const call = (method: string, url: string, body?: unknown, key?: string) =>
        api.call(method, url, {
          token: alice,
          body,
          headers: key ? { 'idempotency-key': key } : undefined,
        });
      const { eventId, master } = await eventOnAnotherMaster(api, store, []);
      const other = await eventOnAnotherMaster(api, store, [master]);
      const held = async (seat: string) => {
        const r = await call('POST', `/v1/events/${eventId}/holds`, { seatIds: [seat] });
        expect([seat, r.status]).toEqual([seat, 201]);
        return r.body.holdId as string;
      };
      // with its replica answering, every change is confirmed
      const toExtend = await held('S-A-1');
      const toRelease = await held('S-A-2');
      const toConfirm = await held('S-A-3');
      const before = {
        hold: await ackTimeouts('hold'),
        extend: await ackTimeouts('extend'),
        release: await ackTimeouts('release'),
        confirm: await ackTimeouts('confirm'),
      };

      // every replica of the master (one of the three has a spare)
      await syncedReplicaOf(master);
      stoppedPids = await Promise.all((await replicasOf(master)).map(pidOf));
      stoppedPids.forEach((pid) => process.kill(pid, 'SIGSTOP'));

      // a new hold: not acknowledged, and released again on the master, so the seat is free
      const refused = await call('POST', `/v1/events/${eventId}/holds`, { seatIds: ['S-A-4'] }, 'k-hold');
      expect(refused.status).toBe(503);
      expect(refused.body.code).toBe('REPLICAS_UNAVAILABLE');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await store.seatConflicts(eventId, ['S-A-4'])).toEqual([]);
      // WAIT goes to the master of the write's slot: another master's replica answers, its holds are 201
      const elsewhere = await call('POST', `/v1/events/${other.eventId}/holds`, { seatIds: ['S-A-1'] });
      expect(elsewhere.status).toBe(201);

      // extend, release, confirm: 503, and the change is in place on the master
      const extended = await call('POST', `/v1/holds/${toExtend}/extend`, { ttlSeconds: 600 }, 'k-ext');
      expect([extended.status, extended.body.code]).toEqual([503, 'REPLICAS_UNAVAILABLE']);
      expect((await call('GET', `/v1/holds/${toExtend}`)).body.extensionsUsed).toBe(1);
      const released = await call('DELETE', `/v1/holds/${toRelease}`, undefined, 'k-rel');
      expect([released.status, released.body.code]).toEqual([503, 'REPLICAS_UNAVAILABLE']);
      expect((await call('GET', `/v1/holds/${toRelease}`)).body.status).toBe('RELEASED');
      const confirmed = await call('POST', `/v1/holds/${toConfirm}/confirm`, { orderId: 'o-1' }, 'k-conf');
      expect([confirmed.status, confirmed.body.code]).toEqual([503, 'REPLICAS_UNAVAILABLE']);
      // nothing booked: the attempt is begun on the master (CONFIRMING), the seat stays held
      expect((await store.getHold(toConfirm))?.status).toBe('CONFIRMING');
      expect(await store.seatConflicts(eventId, ['S-A-3'])).toEqual([{ seatId: 'S-A-3', reason: 'HELD' }]);
      for (const [action, count] of Object.entries(before)) {
        expect([action, await ackTimeouts(action)]).toEqual([action, count + 1]);
      }

      stoppedPids.forEach((pid) => process.kill(pid, 'SIGCONT'));
      stoppedPids = [];
      // the same calls again, same Idempotency-Keys (a 503 frees the key): each now succeeds
      let retried = { status: 0, body: undefined as any, headers: new Headers() };
      await eventually(
        async () => {
          retried = await call('POST', `/v1/events/${eventId}/holds`, { seatIds: ['S-A-4'] }, 'k-hold');
          return retried.status !== 503;
        },
        20_000,
        'the replica confirms again',
      );
      expect(retried.status).toBe(201);
      const again = await call('POST', `/v1/holds/${toExtend}/extend`, { ttlSeconds: 600 }, 'k-ext');
      // the 503 extend was made on the master: its retry with the same key spends no other extension
      expect([again.status, again.body.extensionsUsed]).toEqual([200, 1]);
      expect((await call('DELETE', `/v1/holds/${toRelease}`, undefined, 'k-rel')).status).toBe(204);
      const booked = await call('POST', `/v1/holds/${toConfirm}/confirm`, { orderId: 'o-1' }, 'k-conf');
      expect([booked.status, booked.body.orderId]).toEqual([201, 'o-1']);
      expect((await call('GET', `/v1/holds/${toConfirm}`)).body.status).toBe('CONFIRMED');
    });
  });

  describe('a master killed with kill -9 under load', () => {
    afterEach(() => clusterUp()); // the killed node restarts and rejoins as a replica

    // Control: the same failover without WAIT loses acknowledged holds, so the test below can fail.
    it('without REDIS_WAIT_REPLICAS, loses holds it answered 201 (the defect WAIT prevents)', async () => {
      const run = await failoverUnderLoad(clusterApiEnv(0));
      console.log(`WAIT=0 failover: ${JSON.stringify({ ...run.summary, lost: run.lost.length })}`);
      expect(run.lost.length).toBeGreaterThan(0);
    });

    it('with REDIS_WAIT_REPLICAS=1, every hold answered 201 is still there after the promotion', async () => {
      const run = await failoverUnderLoad(clusterApiEnv(1));
      console.log(`WAIT=1 failover: ${JSON.stringify({ ...run.summary, lost: run.lost.length })}`);
      expect(run.lost).toEqual([]);
      expect(run.summary.created).toBeGreaterThan(0);
      // every other answer during the election and after it is a 503 with Retry-After
      expect(run.otherAnswers.filter((a) => a.status !== 503 || !a.retryAfter)).toEqual([]);
      // the new master has no replica until the spare migrates to it: its holds were refused, not lost
      expect(run.summary.refusedAfterPromotion).toBeGreaterThan(0);
    });
  });
});
