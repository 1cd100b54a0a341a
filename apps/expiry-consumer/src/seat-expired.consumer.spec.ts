import type { KafkaContext } from '@nestjs/microservices';
import type { KafkaMessage } from 'kafkajs';
import type { DeadLetterPublisher } from './dead-letter.publisher';
import type { HoldExpiryRecorder } from './hold-expiry.recorder';
import { SeatExpiredConsumer } from './seat-expired.consumer';

/** When the handler commits, dead-letters or refuses, without Kafka or PostgreSQL (the e2e covers those). */
const event = {
  specversion: '1.0',
  id: 'h1:S-A-1',
  source: '/seat-hold/events/ev',
  type: 'SeatExpired',
  time: '2026-01-01T00:00:01.000Z',
  datacontenttype: 'application/json',
  data: {
    eventId: 'ev',
    seatId: 'S-A-1',
    holdId: 'h1',
    userId: 'u1',
    expireAt: '2026-01-01T00:00:00.000Z',
    fencingToken: 3,
  },
};

function setup(record: () => Promise<boolean>, reachable = true) {
  const commits: unknown[] = [];
  const parked: string[] = [];
  const recorder = { record: jest.fn(record), reachable: () => Promise.resolve(reachable) };
  const deadLetters = {
    publish: (_m: KafkaMessage, _o: unknown, reason: string) => {
      parked.push(reason);
      return Promise.resolve();
    },
  };
  const consumer = new SeatExpiredConsumer(
    recorder as unknown as HoldExpiryRecorder,
    deadLetters as unknown as DeadLetterPublisher,
  );
  const ctx = (value: string): KafkaContext =>
    ({
      getMessage: () => ({ offset: '41', value: Buffer.from(value), key: null, headers: {} }),
      getTopic: () => 'seat.expired',
      getPartition: () => 2,
      getConsumer: () => ({
        commitOffsets: (o: unknown[]) => {
          commits.push(...o);
          return Promise.resolve();
        },
      }),
    }) as unknown as KafkaContext;
  return { consumer, ctx, commits, parked, recorder };
}

it('stores the event, then commits offset + 1', async () => {
  const t = setup(() => Promise.resolve(true));
  await t.consumer.handle({}, t.ctx(JSON.stringify(event)));
  expect(t.recorder.record).toHaveBeenCalledTimes(1);
  expect(t.commits).toEqual([{ topic: 'seat.expired', partition: 2, offset: '42' }]);
  expect(t.parked).toEqual([]);
});

it('parks a message that is not JSON on the dead-letter topic and commits past it', async () => {
  const t = setup(() => Promise.resolve(true));
  await t.consumer.handle({}, t.ctx('{oops'));
  expect(t.recorder.record).not.toHaveBeenCalled();
  expect(t.parked).toEqual([expect.stringMatching(/not JSON/)]);
  expect(t.commits).toHaveLength(1);
});

it('parks a message that keeps failing while the database is up, after 3 attempts', async () => {
  const t = setup(() => Promise.reject(new Error('value out of range')));
  await t.consumer.handle({}, t.ctx(JSON.stringify(event)));
  expect(t.recorder.record).toHaveBeenCalledTimes(3);
  expect(t.parked).toEqual([expect.stringMatching(/failed after 3 attempts: value out of range/)]);
  expect(t.commits).toHaveLength(1);
});

it('neither parks nor commits while the database is down: Kafka redelivers later', async () => {
  const t = setup(() => Promise.reject(new Error('connect ECONNREFUSED')), false);
  await expect(t.consumer.handle({}, t.ctx(JSON.stringify(event)))).rejects.toThrow(/unreachable/);
  expect(t.parked).toEqual([]);
  expect(t.commits).toEqual([]);
});

it('skips an event type it does not know: committed past, not parked, not recorded', async () => {
  const t = setup(() => Promise.resolve(true));
  const other = { ...event, id: 'x-1', type: 'SeatsReassigned', data: { reassignmentId: 'x-1' } };
  await t.consumer.handle({}, t.ctx(JSON.stringify(other)));
  expect(t.recorder.record).not.toHaveBeenCalled();
  expect(t.parked).toEqual([]);
  expect(t.commits).toEqual([{ topic: 'seat.expired', partition: 2, offset: '42' }]);
});
