/**
 * Runs the seat API's real entry point (apps/seat-api/src/main.ts) in a child process, as an operator
 * would, with the test's services: for what only a process shows (its .env handling, its log lines).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { eventually } from './eventually';

const root = resolve(__dirname, '../..');

export interface SpawnedApi {
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves when /health/live answers on `port`; fails with the output if the process exits first. */
  waitUntilUp(port: number): Promise<void>;
  stop(): Promise<void>;
}

export function spawnApi(cwd: string, env: Record<string, string | undefined>): SpawnedApi {
  let output = '';
  const child = spawn(
    process.execPath,
    ['-r', '@swc-node/register', join(root, 'apps/seat-api/src/main.ts')],
    {
      cwd,
      env: {
        ...process.env,
        SWC_NODE_PROJECT: join(root, 'tsconfig.json'),
        NODE_PATH: join(root, 'node_modules'),
        SWEEPER_ENABLED: 'false',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return {
    child,
    output: () => output,
    waitUntilUp: (port) =>
      eventually(async () => (await isLive(port)) || child.exitCode !== null, 60_000, 'API up').then(() => {
        if (child.exitCode !== null) {
          throw new Error(`the API exited with ${child.exitCode}:\n${output}`);
        }
      }),
    stop: async () => {
      // a process killed by a signal has no exitCode, only a signalCode: it exited all the same
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    },
  };
}

export const isLive = (port: number) =>
  fetch(`http://127.0.0.1:${port}/health/live`).then(
    (r) => r.ok,
    () => false,
  );
