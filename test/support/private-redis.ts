import { spawn, ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import Redis from 'ioredis';
import { eventually } from './eventually';

/** A throw-away redis-server on a free loopback port, so measurements (INFO memory) see only this run. */
export interface PrivateRedis {
  url: string;
  port: number;
  client: Redis;
  stop(): Promise<void>;
  /** Starts a new server on the same port (the data is gone: this server keeps nothing on disk). */
  restart(): Promise<PrivateRedis>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts TCP connections on the port; fails if the server exits first. */
async function untilListening(port: number, proc: ChildProcess, timeoutMs = 10_000): Promise<void> {
  const accepts = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  await eventually(
    async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) {
        throw new Error(`redis-server on port ${port} exited before it listened`);
      }
      return accepts();
    },
    timeoutMs,
    `redis-server listening on port ${port}`,
  );
}

export async function startPrivateRedis(extraArgs: string[] = [], fixedPort?: number): Promise<PrivateRedis> {
  const port = fixedPort ?? (await freePort());
  const proc: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extraArgs],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  try {
    await untilListening(port, proc);
  } catch (e) {
    proc.kill('SIGKILL');
    throw e;
  }
  // connected only once the server listens: an ioredis client disconnected after a refused connect keeps
  // a 2 s timer (its disconnectTimeout, never cleared once the socket is gone) that holds jest open
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
  client.on('error', () => undefined);
  await client.connect();
  await client.ping();
  return {
    url,
    port,
    client,
    stop: async () => {
      client.disconnect();
      proc.kill('SIGKILL');
      // a killed process has a signalCode and no exitCode: waiting for 'exit' again would never end
      if (proc.exitCode === null && proc.signalCode === null) {
        await new Promise((r) => proc.once('exit', r));
      }
    },
    restart: () => startPrivateRedis(extraArgs, port),
  };
}
