/**
 * Scripts defined on the single-node client (script-commands.ts), against the tests' Redis (REDIS_URL):
 * what reaches Redis (MONITOR) is EVALSHA, with the client's key prefix, also for the very first call
 * and after a reconnect to an emptied script cache; a cache emptied under a live connection costs one
 * EVAL; the script's own errors, pipelines and callbacks work as with ioredis's own script commands.
 */
import Redis from 'ioredis';
import { connectRedis, createRedisClient } from './create-redis-client';

jest.setTimeout(30_000);

/** SET every key to ARGV[1] and answer the number of keys. */
const SET_ALL = `
for i = 1, #KEYS do redis.call('SET', KEYS[i], ARGV[1], 'PX', 60000) end
return #KEYS
`;
const FAIL = `return redis.error_reply('REFUSED by the script')`;

type Scripts = {
  setAll(numberOfKeys: number, ...keysThenValue: string[]): Promise<number>;
  setOne(key: string, value: string): Promise<number>;
  fail(numberOfKeys: number): Promise<unknown>;
};

const prefix = `${process.env.REDIS_KEY_PREFIX ?? 'test:'}script-commands:${Date.now().toString(36)}:`;

/** The commands MONITOR sees that carry `marker` (so other clients' traffic is left out), lower-cased. */
async function watch(marker: string) {
  const monitorClient = new Redis(process.env.REDIS_URL!);
  const monitor = await monitorClient.monitor();
  const seen: string[][] = [];
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    // commands a script runs are marked "lua": only the client's own are wanted
    if (!source.includes('lua') && args.some((a) => a.includes(marker))) {
      seen.push([args[0].toLowerCase(), ...args.slice(1)]);
    }
  });
  return {
    seen,
    /** MONITOR lags the command's answer a little: wait until `count` commands were seen. */
    async settle(count: number) {
      for (let i = 0; i < 100 && seen.length < count; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    stop: () => {
      monitor.disconnect();
      monitorClient.disconnect();
    },
  };
}

describe('scripts defined on the single-node client', () => {
  let client: Redis;
  let scripts: Scripts;
  let plain: Redis;

  beforeAll(async () => {
    client = createRedisClient({
      url: process.env.REDIS_URL,
      keyPrefix: prefix,
      connectTimeoutMs: 2000,
      commandTimeoutMs: 2000,
      name: 'script-commands-spec',
    }) as Redis;
    await connectRedis(client);
    client.defineCommand('setAll', { lua: SET_ALL }); // key count passed per call
    client.defineCommand('setOne', { lua: SET_ALL, numberOfKeys: 1 });
    client.defineCommand('fail', { lua: FAIL });
    scripts = client as unknown as Scripts;
    plain = new Redis(process.env.REDIS_URL!);
  });
  afterAll(async () => {
    await client?.quit().catch(() => client.disconnect());
    plain?.disconnect();
  });

  it('sends EVALSHA from the first call, with the key count and the key prefix', async () => {
    const marker = `first-${Date.now()}`;
    const m = await watch(marker);
    try {
      await expect(scripts.setAll(2, `${marker}:a`, `${marker}:b`, 'v')).resolves.toBe(2);
      await expect(scripts.setOne(`${marker}:c`, 'w')).resolves.toBe(1);
      await m.settle(2);
      // ioredis's own script command sends the first call on a connection as EVAL (the whole script)
      expect(m.seen.filter((c) => c[0] === 'evalsha' || c[0] === 'eval').map((c) => c[0])).toEqual([
        'evalsha',
        'evalsha',
      ]);
      expect(m.seen[0].slice(2, 5)).toEqual(['2', `${prefix}${marker}:a`, `${prefix}${marker}:b`]);
      expect(m.seen[1].slice(2, 4)).toEqual(['1', `${prefix}${marker}:c`]);
      await expect(plain.mget(`${prefix}${marker}:a`, `${prefix}${marker}:c`)).resolves.toEqual(['v', 'w']);
    } finally {
      m.stop();
    }
  });

  it('sends the script once more as EVAL when Redis lost it under a live connection', async () => {
    const marker = `flushed-${Date.now()}`;
    await plain.script('FLUSH');
    const m = await watch(marker);
    try {
      await expect(scripts.setAll(1, `${marker}:a`, 'after')).resolves.toBe(1);
      await m.settle(2);
      expect(m.seen.map((c) => c[0])).toEqual(['evalsha', 'eval']);
      await expect(plain.get(`${prefix}${marker}:a`)).resolves.toBe('after');
    } finally {
      m.stop();
    }
  });

  it('loads its scripts again on a new connection, before any call can meet NOSCRIPT', async () => {
    const marker = `reconnected-${Date.now()}`;
    await plain.script('FLUSH');
    const ready = new Promise((r) => client.once('ready', r));
    const id = await client.client('ID');
    await plain.client('KILL', 'ID', String(id)); // the client reconnects by itself
    await ready;
    const m = await watch(marker);
    try {
      await expect(scripts.setAll(1, `${marker}:a`, 'v')).resolves.toBe(1);
      await m.settle(1);
      expect(m.seen.map((c) => c[0])).toEqual(['evalsha']);
      const loaded = await plain.script('EXISTS', ...[SET_ALL, FAIL].map(sha1));
      expect(loaded).toEqual([1, 1]);
    } finally {
      m.stop();
    }
  });

  it("rejects with the script's own error, without sending it again", async () => {
    await expect(scripts.fail(0)).rejects.toThrow('REFUSED by the script');
  });

  it('runs in explicit pipelines and with callbacks as before', async () => {
    const marker = `pipeline-${Date.now()}`;
    const pipeline = client.pipeline() as unknown as Scripts & { exec(): Promise<[Error | null, unknown][]> };
    void pipeline.setAll(1, `${marker}:a`, 'p');
    await expect(pipeline.exec()).resolves.toEqual([[null, 1]]);
    const viaCallback = await new Promise((resolve, reject) =>
      (client as unknown as Record<string, (...a: unknown[]) => void>).setAll(
        1,
        `${marker}:b`,
        'c',
        (err: Error | null, n: number) => (err ? reject(err) : resolve(n)),
      ),
    );
    expect(viaCallback).toBe(1);
    await expect(plain.mget(`${prefix}${marker}:a`, `${prefix}${marker}:b`)).resolves.toEqual(['p', 'c']);
  });
});

function sha1(lua: string): string {
  // the name Redis caches a script under, computed apart from the code under test
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('node:crypto') as typeof import('node:crypto'))
    .createHash('sha1')
    .update(lua)
    .digest('hex');
}
