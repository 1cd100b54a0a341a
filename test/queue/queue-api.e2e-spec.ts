/**
 * An event's on-sale queue over HTTP, against the real services: set up by an admin (validated, audited),
 * read by anyone (cacheable, 304), joined once per user, PREQUEUE then WAITING then ADMITTED with an ES256
 * pass that other services can check with /.well-known/jwks.json; the gate on holds (409 without a pass,
 * 403 for another event's, another user's or a forged one; staff go without); the live controls; and the
 * queue's events on seat.status, each valid against the AsyncAPI document.
 */
import { createLocalJWKSet, jwtVerify } from 'jose';
import { parseSeatStatus } from '@app/contracts';
import { eventually, TopicProbe } from '@test/support/kafka-probe';
import { PrivateKafka } from '@test/support/private-kafka';
import { Api, createEvent, startApi } from '@test/support/seat-api';

jest.setTimeout(90_000);

let kafka: PrivateKafka;
let api: Api;
let probe: TopicProbe;
let admin: string;
let eventId: string;

beforeAll(async () => {
  kafka = await PrivateKafka.start();
  api = await startApi({
    KAFKA_BROKERS: kafka.brokers,
    SWEEPER_ENABLED: 'true',
    SWEEP_INTERVAL_MS: '200',
    OUTBOX_RELAY_INTERVAL_MS: '100',
    RATE_LIMIT_ENABLED: 'false',
    QUEUE_STEP_MS: '100',
  });
  probe = await TopicProbe.start(process.env.KAFKA_TOPIC_SEAT_STATUS!, kafka.brokers);
  admin = await api.token('admin-1', ['admin']);
  eventId = await createEvent(api, 2, 10);
});
afterAll(async () => {
  await probe?.stop();
  await api?.close();
  await kafka?.destroy();
});

const at = (msFromNow: number) => new Date(Date.now() + msFromNow).toISOString();
const configure = (body: object, token = admin, id = eventId) =>
  api.call('PUT', `/v1/events/${id}/queue`, { token, body });
const hold = (token: string, seatIds: string[], pass?: string, id = eventId) =>
  api.call('POST', `/v1/events/${id}/holds`, {
    token,
    body: { seatIds },
    headers: pass ? { 'queue-pass': pass } : {},
  });
const join = (token: string, id = eventId) => api.call('POST', `/v1/events/${id}/queue/entries`, { token });
const entry = (token: string, entryId: string) => api.call('GET', `/v1/queue/entries/${entryId}`, { token });

it('refuses a bad setup with 400 naming the field, and anyone but an admin with 403; changes nothing', async () => {
  const good = { opensAt: at(60_000), salesStartAt: at(120_000), admitPerMinute: 60, maxActiveShoppers: 10 };
  const refusals: [object, number][] = [
    [{ ...good, opensAt: at(-1000) }, 400],
    [{ ...good, salesStartAt: at(30_000) }, 400],
    [{ ...good, salesStartAt: '2031-01-01T00:00:00Z' }, 400], // after the event starts
    [{ ...good, admitPerMinute: 0 }, 400],
    [{ ...good, maxActiveShoppers: 2.5 }, 400],
    [{ ...good, order: 'random' }, 400],
    [{ ...good, passTtlSeconds: 5 }, 400],
    [{ ...good, opensAt: 'tomorrow' }, 400],
  ];
  for (const [body, status] of refusals) {
    const r = await configure(body);
    expect([JSON.stringify(body), r.status, r.body.code]).toEqual([
      JSON.stringify(body),
      status,
      'VALIDATION_FAILED',
    ]);
  }
  const agent = await api.token('agent-1', ['agent']);
  expect((await configure(good, agent)).status).toBe(403);
  expect((await configure(good, await api.token('carol'))).status).toBe(403);
  const none = await api.call('GET', `/v1/events/${eventId}/queue`);
  expect([none.status, none.body.code]).toEqual([404, 'QUEUE_NOT_FOUND']);
  // joining: an event without a queue, and one that does not exist, each told apart
  const carol = await api.token('carol');
  const noQueue = await join(carol);
  expect([noQueue.status, noQueue.body.code]).toEqual([404, 'QUEUE_NOT_FOUND']);
  const noEvent = await join(carol, '6d0f3c1a-2b4e-4c8d-9a7f-1e2d3c4b5a69');
  expect([noEvent.status, noEvent.body.code]).toEqual([404, 'EVENT_NOT_FOUND']);
});

it('takes shoppers through the queue: one place each, a pass in their turn, the gate on holds, the controls', async () => {
  const alice = await api.token('alice');
  const bob = await api.token('bob');
  const agent = await api.token('agent-1', ['agent']);
  // before it opens: holds go on without a pass, joining is refused
  const set = await configure({
    opensAt: at(1500),
    salesStartAt: at(3500),
    admitPerMinute: 6000,
    maxActiveShoppers: 1,
    passTtlSeconds: 600,
    idleEntryTtlSeconds: 60,
  });
  expect(set.status).toBe(200);
  expect(set.body).toMatchObject({ phase: 'SCHEDULED', order: 'shuffle-then-fifo', maxActiveShoppers: 1 });
  expect((await join(alice)).body.code).toBe('QUEUE_NOT_OPEN');
  const early = await hold(bob, ['S-B-10']);
  expect(early.status).toBe(201);

  // the public status: cacheable, 304 on its ETag
  const status = await api.call('GET', `/v1/events/${eventId}/queue`);
  expect(status.headers.get('cache-control')).toBe('public, max-age=2');
  const etag = status.headers.get('etag')!;
  const again = await api.call('GET', `/v1/events/${eventId}/queue`, { headers: { 'if-none-match': etag } });
  expect(again.status).toBe(304);

  // open: one place per user however many joins; holds need a pass now
  await eventually(async () => (await join(alice)).status === 201, 10_000, 'the queue opened');
  const joins = await Promise.all(Array.from({ length: 20 }, () => join(alice)));
  expect(new Set(joins.map((j) => j.body.entryId)).size).toBe(1);
  expect(joins.every((j) => j.status === 200 && j.body.status === 'PREQUEUE')).toBe(true);
  const aliceEntry = joins[0].body.entryId as string;
  const bobJoin = await join(bob);
  expect(bobJoin.status).toBe(201);
  const required = await hold(alice, ['S-A-1']);
  expect([required.status, required.body.code]).toEqual([409, 'QUEUE_REQUIRED']);
  expect(required.body.errors).toEqual([{ joinQueue: `/v1/events/${eventId}/queue/entries` }]);
  // staff go without a pass
  const onBehalf = await api.call('POST', `/v1/events/${eventId}/holds/on-behalf`, {
    token: agent,
    body: { customerId: 'dora', seatIds: ['S-B-9'] },
  });
  expect(onBehalf.status).toBe(201);

  // the start: one shopper at a time (cap 1): the first gets a pass, the second waits
  let both: { status: number; body: any }[] = [];
  await eventually(
    async () => {
      both = [await entry(alice, aliceEntry), await entry(bob, bobJoin.body.entryId)];
      return both.some((e) => e.body.status === 'ADMITTED');
    },
    15_000,
    'someone admitted',
  );
  const first = both;
  const [admitted, waiting] = first[0].body.status === 'ADMITTED' ? first : [first[1], first[0]];
  expect(waiting.body).toMatchObject({ status: 'WAITING', placesAhead: 0 });
  const admittedToken = admitted.body.entryId === aliceEntry ? alice : bob;
  const otherToken = admittedToken === alice ? bob : alice;
  const pass = admitted.body.pass as string;

  // the pass: ES256 with a kid, checked by anyone with the JWKS
  const jwks = await api.call('GET', '/.well-known/jwks.json');
  const { payload, protectedHeader } = await jwtVerify(pass, createLocalJWKSet(jwks.body), {
    audience: eventId,
    issuer: 'seat-hold',
  });
  expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: jwks.body.keys[0].kid });
  expect(payload).toMatchObject({ jti: admitted.body.entryId });
  expect(payload.exp! * 1000).toBeLessThanOrEqual(Date.parse(admitted.body.passExpiresAt) + 1000);

  // the gate: another user's pass, a forged one, another event's: 403; the pass itself: 201
  expect((await hold(otherToken, ['S-A-2'], pass)).body.code).toBe('ADMISSION_INVALID');
  const forged = pass.slice(0, -4) + (pass.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  expect((await hold(admittedToken, ['S-A-2'], forged)).status).toBe(403);
  const otherEvent = await createEvent(api, 1, 5);
  expect((await hold(admittedToken, ['S-A-1'], pass, otherEvent)).status).toBe(403);
  const held = await hold(admittedToken, ['S-A-2'], pass);
  expect(held.status).toBe(201);

  // their hold released: their turn ends in that step, the next shopper is admitted
  expect((await api.call('DELETE', `/v1/holds/${held.body.holdId}`, { token: admittedToken })).status).toBe(
    204,
  );
  await eventually(
    async () => (await entry(otherToken, waiting.body.entryId)).body.status === 'ADMITTED',
    10_000,
    'the next shopper admitted',
  );
  expect((await entry(admittedToken, admitted.body.entryId)).body.status).toBe('DONE');
  expect((await hold(admittedToken, ['S-A-3'], pass)).body.code).toBe('ADMISSION_INVALID');

  // the controls, each audited
  for (const [method, path, body] of [
    ['POST', 'pause', undefined],
    ['POST', 'resume', undefined],
    ['PATCH', '', { admitPerMinute: 120, maxActiveShoppers: 5 }],
    ['POST', 'admit', { count: 3 }],
  ] as const) {
    const r = await api.call(method, `/v1/events/${eventId}/queue${path ? `/${path}` : ''}`, {
      token: admin,
      body,
    });
    expect([path, r.status]).toEqual([path, 200]);
  }
  expect((await api.call('GET', `/v1/events/${eventId}/queue`)).body).toMatchObject({
    admitPerMinute: 120,
    maxActiveShoppers: 5,
    paused: false,
  });
  expect((await api.call('DELETE', `/v1/events/${eventId}/queue`, { token: admin })).status).toBe(204);
  const audit = await api.call('GET', `/v1/events/${eventId}/audit`, { token: admin });
  expect(audit.body.items.map((e: any) => e.action).filter((a: string) => a.startsWith('QUEUE_'))).toEqual([
    'QUEUE_CONFIGURE',
    'QUEUE_PAUSE',
    'QUEUE_RESUME',
    'QUEUE_PACE',
    'QUEUE_ADMIT',
    'QUEUE_CLOSE',
  ]);
  // switched off: holds need no pass again
  await eventually(async () => (await hold(otherToken, ['S-A-5'])).status === 201, 5_000, 'no gate');

  // the stream told it all, each message valid against the contract
  const mine = () =>
    probe.values().filter((m) => m.data?.eventId === eventId && /^(Queue|Shopper|Admission)/.test(m.type));
  await eventually(() => mine().some((m) => m.type === 'QueueClosed'), 20_000, 'queue events on seat.status');
  mine().forEach((m) => parseSeatStatus(m));
  const types = mine().map((m) => m.type);
  expect(types[0]).toBe('QueueOpened');
  expect(types).toEqual(
    expect.arrayContaining([
      'ShopperAdmitted',
      'ShopperFinished',
      'QueuePaused',
      'QueueResumed',
      'QueueUpdated',
      'QueueClosed',
    ]),
  );
  const finished = mine().find((m) => m.type === 'ShopperFinished');
  expect(finished.data).toMatchObject({ entryId: admitted.body.entryId, reason: 'RELEASED' });
});
