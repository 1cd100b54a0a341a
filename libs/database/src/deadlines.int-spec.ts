/**
 * Every PostgreSQL call of a DataSource built by dataSourceOptions has a client-side deadline: through a
 * TCP proxy that goes silent (sockets open, no byte forwarded, nothing refused), a query fails after
 * DATABASE_QUERY_TIMEOUT_MS, a new connection after DATABASE_CONNECT_TIMEOUT_MS, and onConnectionWithin
 * after its own budget. The connections that went silent are never handed out again: once the proxy
 * forwards again, the next query answers at once.
 *
 * @needs postgres
 */
import { DataSource } from 'typeorm';
import { eventually } from '@test/support/eventually';
import { startTcpProxy, TcpProxy } from '@test/support/tcp-proxy';
import { DatabaseDeadlineError, dataSourceOptions, onConnectionWithin } from '.';

jest.setTimeout(60_000);

let proxy: TcpProxy;
let ds: DataSource;

beforeAll(async () => {
  const real = new URL(process.env.DATABASE_URL!);
  proxy = await startTcpProxy({ host: real.hostname, port: Number(real.port || 5432) });
  ds = await new DataSource(
    dataSourceOptions({
      url: proxy.urlFor(process.env.DATABASE_URL!),
      schema: 'public',
      poolSize: 2,
      timeouts: { queryMs: 800, connectMs: 800, statementMs: 600 },
    }),
  ).initialize();
});
afterEach(() => proxy.thaw());
afterAll(async () => {
  proxy?.thaw();
  await ds?.destroy();
  await proxy?.close();
});

/** The call's outcome, settled while the proxy is still silent (the jest timeout is the hang detector). */
async function whileSilent(call: () => Promise<unknown>): Promise<unknown> {
  proxy.freeze();
  const outcome = await call().then(
    () => 'answered',
    (e: unknown) => e,
  );
  expect(proxy.frozen).toBe(true);
  proxy.thaw();
  return outcome;
}

it('a query on a pooled connection fails with pg "Query read timeout" while PostgreSQL is silent; the next one, after, answers', async () => {
  await ds.query('SELECT 1'); // the pool holds an open connection
  const outcome = await whileSilent(() => ds.query('SELECT 1'));
  expect(String(outcome)).toContain('Query read timeout');
  expect(await ds.query('SELECT 2 AS n')).toEqual([{ n: 2 }]);
});

it('every pooled connection that went silent is dropped, not handed out again', async () => {
  // both connections of the pool busy while silent, so both are the ones that timed out
  proxy.freeze();
  const outcomes = await Promise.allSettled([ds.query('SELECT 1'), ds.query('SELECT 1')]);
  expect(proxy.frozen).toBe(true);
  proxy.thaw();
  expect(outcomes.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  const pool = (ds.driver as unknown as { master: { totalCount: number } }).master;
  await eventually(() => pool.totalCount === 0, 5_000, 'the pool holds no connection that went silent');
  const answers = await Promise.all([ds.query('SELECT 3 AS n'), ds.query('SELECT 4 AS n')]);
  expect(answers).toEqual([[{ n: 3 }], [{ n: 4 }]]);
});

it('onConnectionWithin gives up after its own budget with DatabaseDeadlineError, transaction and all', async () => {
  const outcome = await whileSilent(() =>
    onConnectionWithin(ds, 300, async (qr) => {
      await qr.startTransaction();
      await qr.query('SELECT 1');
      await qr.commitTransaction();
    }),
  );
  expect(outcome).toBeInstanceOf(DatabaseDeadlineError);
  expect(await onConnectionWithin(ds, 2000, (qr) => qr.query('SELECT 5 AS n'))).toEqual([{ n: 5 }]);
});
