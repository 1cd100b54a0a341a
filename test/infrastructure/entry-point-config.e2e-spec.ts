/**
 * The entry points as an operator runs them: `.env` is read by the app itself (so `npm run start:api`
 * and `npm start` agree), a variable set in the environment wins over it, and a bad value stops boot
 * with the variable's name and no stack trace.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@test/support/private-redis';
import { isLive, SpawnedApi, spawnApi } from '@test/support/spawn-api';

let dir: string;
let api: SpawnedApi | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'seat-env-'));
});
afterEach(async () => {
  await api?.stop();
  api = undefined;
  rmSync(dir, { recursive: true, force: true });
});

// the .env file under test must be the only source of these
const fromFileOnly = { PORT: undefined, LOG_LEVEL: undefined };

describe('entry point configuration', () => {
  it('reads .env, and the environment wins over it', async () => {
    const filePort = await freePort();
    const envPort = await freePort();
    writeFileSync(join(dir, '.env'), `PORT=${filePort}\nLOG_LEVEL=warn\n`);
    api = spawnApi(dir, { ...fromFileOnly, PORT: String(envPort) });
    await api.waitUntilUp(envPort);
    expect(await isLive(filePort)).toBe(false);
  });

  it('uses .env when the environment does not set the variable', async () => {
    const filePort = await freePort();
    writeFileSync(join(dir, '.env'), `PORT=${filePort}\nLOG_LEVEL=warn\n`);
    api = spawnApi(dir, fromFileOnly);
    await api.waitUntilUp(filePort);
  });

  it('stops on a bad value, naming the variable, without a stack trace', async () => {
    writeFileSync(join(dir, '.env'), 'LOG_LEVEL=loud\n');
    api = spawnApi(dir, fromFileOnly);
    const code = await new Promise<number | null>((r) => api!.child.once('exit', r));
    expect(code).toBe(1);
    expect(api.output()).toContain('Invalid configuration');
    expect(api.output()).toContain('LOG_LEVEL');
    expect(api.output()).not.toMatch(/^\s+at /m);
  });
});
