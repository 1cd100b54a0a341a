import { spawn, ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import Redis from 'ioredis';

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

export async function startPrivateRedis(extraArgs: string[] = [], fixedPort?: number): Promise<PrivateRedis> {
  const port = fixedPort ?? (await freePort());
  const proc: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extraArgs],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
  client.on('error', () => undefined); // connection refused until the server is up: expected
  for (let i = 0; ; i++) {
    try {
      await client.connect();
      await client.ping();
      break;
    } catch (e) {
      if (i > 50) {
        proc.kill('SIGKILL');
        throw e;
      }
      client.disconnect();
      await new Promise((r) => setTimeout(r, 100));
    }
  }
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
