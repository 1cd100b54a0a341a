/**
 * Runs apps/waitlist's real entry point in a child process, so a test can kill it with SIGKILL as a crash
 * would (no shutdown hook runs, no offset is committed, open transactions are rolled back by PostgreSQL).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { eventually } from '../support/eventually';

const root = resolve(__dirname, '../..');

export interface WaitlistProcess {
  child: ChildProcess;
  /** Its /health and /metrics port. */
  port: number;
  output(): string;
  /** SIGKILL, then waits for the exit. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** A free loopback port (the app's health server needs one of its own). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** Starts an instance and resolves once its /health answers and it has joined its group. */
export async function startWaitlistProcess(env: Record<string, string>): Promise<WaitlistProcess> {
  const port = await freePort();
  let output = '';
  const child = spawn(
    process.execPath,
    ['-r', '@swc-node/register', join(root, 'apps/waitlist/src/main.ts')],
    {
      cwd: root,
      env: {
        ...process.env,
        SWC_NODE_PROJECT: join(root, 'tsconfig.json'),
        WAITLIST_PORT: String(port),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise((r) => child.once('exit', r));
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      await exited;
    }
  };
  // ready: /health answers 200 once PostgreSQL and Kafka answer and the consumer has joined its group
  await eventually(async () => child.exitCode !== null || (await isReady(port)), 90_000, 'waitlist ready');
  if (child.exitCode !== null) {
    throw new Error(`the waitlist app exited with ${child.exitCode}:\n${output}`);
  }
  return { child, port, output: () => output, kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
}

const isReady = (port: number) =>
  fetch(`http://127.0.0.1:${port}/health`).then(
    (r) => r.status === 200,
    () => false,
  );
