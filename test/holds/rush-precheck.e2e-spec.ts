/**
 * In a rush (most recent attempts on an event refused as taken) a hold request reads its seats
 * without the lock first: a 409 then costs one Redis command instead of two. Outside a rush the hold
 * stays lock, then the hold script (which lets go of the lock itself: HeldLock.letGoInScript). Counted with MONITOR on a throw-away redis-server, only commands naming
 * the event (the app's background work, which names shards, is left out).
 */
import { monitorRedis, RedisMonitor } from '@test/support/redis-monitor';
import { Api, createEvent, startApi } from '@test/support/seat-api';
import { PrivateRedis, startPrivateRedis } from '@test/support/private-redis';
import { eventually } from '@test/support/eventually';

jest.setTimeout(60_000);

let server: PrivateRedis;
let monitor: RedisMonitor;
let api: Api;
let eventId: string;
/** Commands sent by clients (not run inside a script) that name `eventId`: 'script' for EVAL / EVALSHA. */
let seen: string[] = [];
/** ZADDs clients sent to the wake index (hold-keys.ts, WAKE_KEY), which names a shard, not the event. */
let wakes: string[][] = [];
/** The last marker MONITOR showed: Redis shows commands in the order it ran them, so all before it too. */
let shown = '';
let markers = 0;

const hold = async (user: string, seatIds: string[]) =>
  api.call('POST', `/v1/events/${eventId}/holds`, { token: await api.token(user), body: { seatIds } });

beforeAll(async () => {
  server = await startPrivateRedis();
  api = await startApi({
    REDIS_URL: server.url,
    REDIS_CLUSTER_NODES: '',
    RATE_LIMIT_ENABLED: 'false',
    HOLD_MAX_SEATS_PER_USER: '100',
  });
  eventId = await createEvent(api, 4, 25);
  // the event's first hold also registers it in its shard (once per instance): not part of what is counted
  expect((await hold('warm-up', ['S-D-25'])).status).toBe(201);
  monitor = await monitorRedis(server.url, (args, source) => {
    if (args[0].toLowerCase() === 'echo' && args[1]?.startsWith(`marker:${eventId}:`)) {
      shown = args[1];
      return;
    }
    if (!source.includes('lua') && args[0].toLowerCase() === 'zadd' && args[1].endsWith('hold:wake')) {
      wakes.push(args);
    }
    if (!source.includes('lua') && args.some((a) => a.includes(eventId))) {
      // one script call: the lock's EVALSHA (EVAL if Redis lost the script), the hold store's FCALL
      seen.push(/^(eval(sha)?|fcall)$/i.test(args[0]) ? 'script' : args[0].toLowerCase());
    }
  });
});
afterAll(async () => {
  monitor?.stop();
  await api?.close();
  await server?.stop();
});

/** The commands one request sent, once MONITOR has shown them. */
async function commandsOf<T>(request: () => Promise<T>): Promise<[T, string[]]> {
  seen = [];
  const answer = await request();
  const marker = `marker:${eventId}:${++markers}`;
  await server.client.echo(marker);
  await eventually(() => shown === marker, 5000, 'MONITOR showing the request');
  return [answer, seen];
}

it('a calm event: each hold is lock, then the hold script, which unlocks (two commands)', async () => {
  for (let i = 1; i <= 5; i++) {
    const [answer, commands] = await commandsOf(() => hold(`calm-${i}`, [`S-A-${i}`]));
    expect(answer.status).toBe(201);
    expect(commands).toEqual(['script', 'script']);
  }
});

it('a hold due after its shard already is sends nothing else: the wake index is lowered only by a hold that brings the sweep forward', async () => {
  wakes = [];
  const due: number[] = [];
  for (let i = 6; i <= 10; i++) {
    const [answer] = await commandsOf(() => hold(`calm-${i}`, [`S-A-${i}`]));
    expect(answer.status).toBe(201);
    due.push(Date.parse((answer.body as { expiresAt: string }).expiresAt));
  }
  // each came after the warm-up's hold of the same event, due earlier: its shard's wake-up already is.
  // (The seat.status relay's own wake-up, ZADD to 0 once per shard per STATUS_WAKE_MS, is not the hold's.)
  expect(wakes.filter((args) => due.includes(Number(args[3])))).toEqual([]);

  // the shard is still woken no later than its earliest hold (the warm-up's)
  const [seatsKey] = await server.client.keys(`*hold:{s*}:${eventId}:seats`);
  const shard = /\{s(\d+)\}/.exec(seatsKey)![1];
  const [wakeKey] = await server.client.keys('*hold:wake');
  const wakeAt = await server.client.zscore(wakeKey, shard);
  expect(wakeAt).not.toBeNull();
  const calm = await hold('calm-11', ['S-A-11']);
  expect(Number(wakeAt)).toBeLessThan(Date.parse((calm.body as { expiresAt: string }).expiresAt));
});

it('a rush: once most attempts find their seats taken, a 409 costs one read, a free seat is still held', async () => {
  // S-A-1 .. S-A-5 are held (above): everyone now asks for them
  const answers: { status: number; commands: string[] }[] = [];
  for (let i = 0; i < 30; i++) {
    const [answer, commands] = await commandsOf(() => hold(`rush-${i}`, [`S-A-${1 + (i % 5)}`]));
    answers.push({ status: answer.status, commands });
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({
      code: 'SEATS_UNAVAILABLE',
      errors: [{ seatId: `S-A-${1 + (i % 5)}` }],
    });
  }
  // the first attempts took the seat lock to learn it (2 commands, more when a script is sent for the
  // first time: EVALSHA finds Redis without it, EVAL follows); from some point on, one read each
  expect(answers[0].commands.length).toBeGreaterThanOrEqual(2);
  expect(answers.slice(-10).every((a) => a.commands.length === 1)).toBe(true);

  // a free seat during the rush: the read finds it free, then the usual locked hold takes it
  const [won, commands] = await commandsOf(() => hold('rush-winner', ['S-B-1']));
  expect(won.status).toBe(201);
  expect(commands).toHaveLength(3);

  const metrics = await api.call('GET', '/metrics');
  expect(String(metrics.body)).toMatch(/seat_hold_prechecks_total\{seats="taken"\} [1-9]/);
});

it('the rush ends: after enough holds that succeed, holds go straight to the lock again', async () => {
  let last: string[] = [];
  for (let i = 2; i <= 25; i++) {
    const [answer, commands] = await commandsOf(() => hold(`after-${i}`, [`S-C-${i}`]));
    expect(answer.status).toBe(201);
    last = commands;
  }
  expect(last).toEqual(['script', 'script']);
});
