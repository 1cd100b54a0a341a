/**
 * REDIS_WAIT_REPLICAS=1 with the only replica frozen (SIGSTOP), on throw-away redis-servers: a change's
 * WAIT blocks until its timeout, and must block nothing else. A plain command and a seat-map read through
 * the app's shared client complete while that WAIT is still blocked on the master; /health stays 200 but
 * reports `redisReplicas` degraded, naming the master whose replica does not answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { REDIS_CLIENT } from '@app/redis';
import type Redis from 'ioredis';
import { eventually } from '@test/support/eventually';
import { PrivateRedis, startPrivateRedis } from '@test/support/private-redis';
import { Api, createEvent, startApi } from '@test/support/seat-api';

jest.setTimeout(60_000);

/** Clients of the master blocked in a WAIT right now (CLIENT LIST: cmd=wait, flag b). */
async function blockedWaits(master: PrivateRedis): Promise<number> {
  const list = String(await master.client.call('CLIENT', 'LIST'));
  return list.split('\n').filter((l) => /\bcmd=wait\b/.test(l) && /\bflags=\w*b/.test(l)).length;
}

describe('REDIS_WAIT_REPLICAS=1 with a frozen replica', () => {
  const saved = { ...process.env };
  const dir = mkdtempSync(path.join(tmpdir(), 'replica-isolation-'));
  let master: PrivateRedis;
  let replica: PrivateRedis;
  let replicaPid: number;
  let frozen = false;
  let api: Api;
  let eventId: string;

  const freeze = () => {
    process.kill(replicaPid, 'SIGSTOP');
    frozen = true;
  };
  const thaw = () => {
    if (frozen) {
      process.kill(replicaPid, 'SIGCONT');
      frozen = false;
    }
  };

  beforeAll(async () => {
    master = await startPrivateRedis(['--dir', dir]);
    replica = await startPrivateRedis(['--dir', dir, '--replicaof', '127.0.0.1', String(master.port)]);
    await eventually(
      async () => /master_link_status:up/.test(await replica.client.info('replication')),
      10_000,
      'replica in sync',
    );
    replicaPid = Number(/process_id:(\d+)/.exec(await replica.client.info('server'))![1]);
    api = await startApi({
      REDIS_URL: master.url,
      REDIS_CLUSTER_NODES: '',
      REDIS_WAIT_REPLICAS: '1',
      // a WAIT that outlives the test's few reads by far: what they must not wait behind
      REDIS_WAIT_TIMEOUT_MS: '8000',
      REDIS_COMMAND_TIMEOUT_MS: '10000',
    });
    eventId = await createEvent(api, 1, 10);
  });
  afterEach(() => thaw());
  afterAll(async () => {
    thaw();
    await api?.close();
    await replica?.stop();
    await master?.stop();
    process.env = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it("a GET and a seat-map read through the shared client complete while a hold's WAIT is still blocked", async () => {
    const alice = await api.token('alice');
    await api.call('GET', `/v1/events/${eventId}/seats`, { token: alice }); // warm: the event is known
    freeze();
    let holdAnswered = false;
    const hold = api
      .call('POST', `/v1/events/${eventId}/holds`, { token: alice, body: { seatIds: ['S-A-1'] } })
      .finally(() => (holdAnswered = true));
    await eventually(
      async () => (await blockedWaits(master)) > 0,
      5_000,
      "the hold's WAIT blocked on the master",
    );

    const shared = api.app.get<Redis>(REDIS_CLIENT);
    await shared.set('isolation-probe', 'v', 'PX', 60_000);
    const read = await shared.get('isolation-probe');
    const seats = await api.call('GET', `/v1/events/${eventId}/seats`, { token: alice });

    // both came back while the WAIT was still blocked and the hold not yet answered
    expect([read, seats.status, holdAnswered, await blockedWaits(master)]).toEqual(['v', 200, false, 1]);
    const refused = await hold;
    expect([refused.status, refused.body.code]).toEqual([503, 'REPLICAS_UNAVAILABLE']);
  });

  it('/health stays 200 and reports redisReplicas degraded, naming the master, while the replica does not answer', async () => {
    const master0 = `127.0.0.1:${master.port}`;
    const health = () => api.call('GET', '/health');
    // up first: the replica answers again (the test before this one froze and thawed it, and its link
    // takes a moment to report back)
    await eventually(
      async () => (await health()).body.info?.redisReplicas?.status === 'up',
      20_000,
      'redisReplicas up before the freeze',
    );
    freeze();
    let seen: any;
    await eventually(
      async () => {
        seen = await health();
        return seen.body.info?.redisReplicas?.status === 'degraded';
      },
      20_000,
      'redisReplicas degraded',
    );
    expect(seen.status).toBe(200);
    expect(seen.body.info.redisReplicas).toMatchObject({
      status: 'degraded',
      waitReplicas: 1,
      refusedShare: 1,
      masters: [{ master: master0, answering: 0, connected: 1 }],
    });
    expect(seen.body.info.redisReplicas.message).toContain(master0);
    thaw();
    await eventually(
      async () => (await health()).body.info?.redisReplicas?.status === 'up',
      20_000,
      'redisReplicas up again',
    );
  });
});
