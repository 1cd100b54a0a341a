import { PublishRound } from './publish-round';

const live = () => new AbortController().signal;

describe('PublishRound', () => {
  it('sends once every participant handed in or withdrew, whole batches in hand-in order, as few sends as fit', async () => {
    const sends: string[][] = [];
    const round = new PublishRound<string>(4, 5, async (items) => {
      sends.push(items);
      await Promise.resolve();
    });
    const a = round.submit(['a1', 'a2', 'a3'], live());
    const b = round.submit(['b1', 'b2'], live());
    await Promise.resolve();
    expect(sends).toEqual([]); // two participants still to come
    round.withdraw();
    const c = round.submit(['c1', 'c2'], live());
    expect(await Promise.all([a, b, c])).toEqual([true, true, true]);
    // a and b fill 5; c would make 7: a second send, never a batch split over two
    expect(sends).toEqual([
      ['a1', 'a2', 'a3', 'b1', 'b2'],
      ['c1', 'c2'],
    ]);
  });

  it('leaves out a batch whose lease was lost before its send (false), and sends nothing for empty batches', async () => {
    const sends: string[][] = [];
    const lost = new AbortController();
    const round = new PublishRound<string>(3, 10, async (items) => {
      sends.push(items);
      lost.abort(); // lost while the first send is on its way: not sent
      await Promise.resolve();
    });
    const a = round.submit(['a1'], live());
    const empty = round.submit([], live());
    // one batch alone over maxPerSend still goes, in a send of its own
    const b = round.submit(
      Array.from({ length: 11 }, (_, i) => `b${i}`),
      lost.signal,
    );
    expect(await Promise.all([a, empty, b])).toEqual([true, true, false]);
    expect(sends).toEqual([['a1']]);
  });

  it('fails the batches of a failed send and of every later one; earlier ones were published', async () => {
    let calls = 0;
    const round = new PublishRound<string>(3, 2, async () => {
      calls++;
      await Promise.resolve();
      if (calls === 2) {
        throw new Error('Kafka down');
      }
    });
    const results = await Promise.allSettled([
      round.submit(['a1', 'a2'], live()),
      round.submit(['b1', 'b2'], live()),
      round.submit(['c1'], live()),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      true,
      'Kafka down',
      'Kafka down',
    ]);
    expect(calls).toBe(2);
  });
});
