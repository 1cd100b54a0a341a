/**
 * Graceful shutdown: on SIGTERM the API first answers 503 on readiness (/health) so a load
 * balancer stops sending it requests, keeps serving and answering liveness (/health/live) for
 * SHUTDOWN_DRAIN_MS, then closes and exits. The real entry point in a child process, as an operator runs it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@test/support/eventually';
import { freePort } from '@test/support/private-redis';
import { SpawnedApi, spawnApi } from '@test/support/spawn-api';

jest.setTimeout(90_000);

let dir: string;
let api: SpawnedApi | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'seat-drain-')); // no .env: the test's environment only
});
afterEach(async () => {
  if (api && api.child.exitCode === null && api.child.signalCode === null) {
    api.child.kill('SIGKILL');
    await new Promise((r) => api!.child.once('exit', r));
  }
  api = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const status = (port: number, path: string) =>
  fetch(`http://127.0.0.1:${port}${path}`).then(
    (r) => r.status,
    () => 0, // refused: the server is closed
  );
const exited = (a: SpawnedApi) => a.child.exitCode !== null || a.child.signalCode !== null;
const exit = (a: SpawnedApi) =>
  exited(a) ? Promise.resolve() : new Promise<void>((r) => a.child.once('exit', () => r()));

it('answers 503 on readiness and still 200 on liveness while it drains; a second signal ends the drain', async () => {
  const port = await freePort();
  // a drain far longer than the test: what ends it here is the second signal
  api = spawnApi(dir, { PORT: String(port), SHUTDOWN_DRAIN_MS: '600000' });
  await api.waitUntilUp(port);
  expect(await status(port, '/health')).toBe(200);

  api.child.kill('SIGTERM');
  await eventually(
    async () => exited(api!) || (await status(port, '/health')) === 503,
    20_000,
    'readiness 503',
  );
  expect(exited(api)).toBe(false); // draining, not gone
  expect(await status(port, '/health/live')).toBe(200);
  const body = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as Record<string, any>;
  expect(body.error?.shutdown?.status).toBe('down');

  api.child.kill('SIGTERM'); // an operator who does not want to wait
  await exit(api);
  expect(await status(port, '/health/live')).toBe(0);
});

it('closes by itself and exits once SHUTDOWN_DRAIN_MS has passed', async () => {
  const port = await freePort();
  api = spawnApi(dir, { PORT: String(port), SHUTDOWN_DRAIN_MS: '300' });
  await api.waitUntilUp(port);
  api.child.kill('SIGTERM');
  await exit(api);
  expect(api.output()).not.toMatch(/Error during shutdown|UnhandledPromiseRejection/i);
});
