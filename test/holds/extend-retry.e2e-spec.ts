/**
 * An extend answered 503 REPLICAS_UNAVAILABLE was made on the master (REDIS_WAIT_REPLICAS=1, the replica
 * stopped): retried with the same Idempotency-Key it must not be made again. Each retry would otherwise
 * spend another extension, until the key's answer became 422 EXTENSION_LIMIT_REACHED for a client that
 * asked for one extension.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { eventually } from '../support/eventually';
import { PrivateRedis, startPrivateRedis } from '../support/private-redis';
import { Api, createEvent, startApi } from '../support/seat-api';

jest.setTimeout(60_000);

// a replica writes the master's snapshot in its working directory: never in the checkout
const dir = mkdtempSync(path.join(tmpdir(), 'extend-retry-'));
let master: PrivateRedis;
let replica: PrivateRedis;
let replicaPid: number | undefined;
let api: Api;

beforeAll(async () => {
  master = await startPrivateRedis(['--dir', dir]);
  replica = await startPrivateRedis(['--dir', dir, '--replicaof', '127.0.0.1', String(master.port)]);
  await eventually(
    async () => /master_link_status:up/.test(await replica.client.info('replication')),
    10_000,
    'replica in sync',
  );
  api = await startApi({
    REDIS_URL: master.url,
    REDIS_CLUSTER_NODES: '',
    REDIS_WAIT_REPLICAS: '1',
    REDIS_WAIT_TIMEOUT_MS: '200',
    RATE_LIMIT_ENABLED: 'false',
    HOLD_MAX_EXTENSIONS: '3',
  });
});
afterAll(async () => {
  if (replicaPid) {
    process.kill(replicaPid, 'SIGCONT');
  }
  await api?.close();
  await replica?.stop();
  await master?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('an extend retried with one Idempotency-Key while a replica is down spends one extension', async () => {
  const eventId = await createEvent(api, 1, 2);
  const alice = await api.token('alice');
  const held = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: alice,
    body: { seatIds: ['S-A-1'] },
  });
  expect(held.status).toBe(201);
  const holdId = held.body.holdId as string;
  const extend = () =>
    api.call('POST', `/v1/holds/${holdId}/extend`, {
      token: alice,
      body: { ttlSeconds: 120 },
      headers: { 'idempotency-key': 'extend-once' },
    });

  replicaPid = Number(/process_id:(\d+)/.exec(await replica.client.info('server'))![1]);
  process.kill(replicaPid, 'SIGSTOP');
  const whileDown = [];
  for (let i = 0; i < 5; i++) {
    const r = await extend();
    whileDown.push([r.status, r.body.code, Number(r.headers.get('retry-after')) >= 1]);
  }
  expect(whileDown).toEqual(Array(5).fill([503, 'REPLICAS_UNAVAILABLE', true]));

  process.kill(replicaPid, 'SIGCONT');
  replicaPid = undefined;
  let answer = await extend();
  // the replica catches up with the master before its WAITs answer again
  await eventually(
    async () => (answer = answer.status === 200 ? answer : await extend()).status === 200,
    10_000,
    'the extend answered once the replica is back',
  );
  expect(answer.body.extensionsUsed).toBe(1);
  const read = await api.call('GET', `/v1/holds/${holdId}`, { token: alice });
  expect(read.body.extensionsUsed).toBe(1);
  // and the key replays that answer
  const replay = await extend();
  expect([replay.status, replay.body.extensionsUsed]).toEqual([200, 1]);
});
