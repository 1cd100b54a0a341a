/**
 * The entry points as an operator runs them: `.env` is read by the app itself (so `npm run start:api`
 * and `npm start` agree), a variable set in the environment wins over the file, and a bad value stops
 * boot with the variable's name and no stack trace.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../support/private-redis';
import { eventually } from '../support/eventually';

const root = resolve(__dirname, '../..');
const apiMain = join(root, 'apps/seat-api/src/main.ts');

let dir: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'seat-env-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the seat API's main.ts from `dir` (where the test's .env is), with the test's services. */
function startApi(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, ['-r', '@swc-node/register', apiMain], {
    cwd: dir,
    env: {
      ...process.env,
      // the .env file under test must be the only source of these
      PORT: undefined,
      LOG_LEVEL: undefined,
      SWC_NODE_PROJECT: join(root, 'tsconfig.json'),
      NODE_PATH: join(root, 'node_modules'),
      SWEEPER_ENABLED: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}

const answers = async (port: number) =>
  fetch(`http://127.0.0.1:${port}/health/live`).then(
    (r) => r.ok,
    () => false,
  );

describe('entry point configuration', () => {
  it('reads .env, and the environment wins over it', async () => {
    const filePort = await freePort();
    const envPort = await freePort();
    writeFileSync(join(dir, '.env'), `PORT=${filePort}\nLOG_LEVEL=warn\n`);
    const { child, output } = startApi({ PORT: String(envPort) });
    await eventually(async () => (await answers(envPort)) || child.exitCode !== null, 60_000, 'API up').catch(
      (e) => {
        throw new Error(`${(e as Error).message}\n${output()}`);
      },
    );
    expect(child.exitCode).toBeNull();
    expect(await answers(envPort)).toBe(true);
    expect(await answers(filePort)).toBe(false);
  });

  it('uses .env when the environment does not set the variable', async () => {
    const filePort = await freePort();
    writeFileSync(join(dir, '.env'), `PORT=${filePort}\nLOG_LEVEL=warn\n`);
    const { child, output } = startApi({});
    await eventually(
      async () => (await answers(filePort)) || child.exitCode !== null,
      60_000,
      'API up',
    ).catch((e) => {
      throw new Error(`${(e as Error).message}\n${output()}`);
    });
    expect(child.exitCode).toBeNull();
  });

  it('stops on a bad value, naming the variable, without a stack trace', async () => {
    writeFileSync(join(dir, '.env'), 'LOG_LEVEL=loud\n');
    const { child, output } = startApi({});
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(1);
    expect(output()).toContain('Invalid configuration');
    expect(output()).toContain('LOG_LEVEL');
    expect(output()).not.toMatch(/^\s+at /m);
  });
});
