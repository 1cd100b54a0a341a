/**
 * The drill's own infrastructure, so faults never touch a developer's services: a redis-server with
 * append-only persistence (as docker-compose.yml runs it) that can be restarted on its file, and a
 * private Kafka broker (same jars and script as the shared one) that can be stopped and started.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import Redis from 'ioredis';
import { freePort } from '../../test/support/private-redis';
import { BenchRedis } from '../support/local-cluster';

export class AofRedis implements BenchRedis {
  readonly mode = 'single';
  private proc?: ChildProcess;
  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get serviceEnv(): Record<string, string> {
    return { REDIS_URL: this.url, REDIS_CLUSTER_NODES: '' };
  }

  client(keyPrefix: string): Redis {
    const c = new Redis(this.url, { keyPrefix });
    c.on('error', () => undefined);
    return c;
  }

  static async start(): Promise<AofRedis> {
    const redis = new AofRedis(await freePort(), mkdtempSync(path.join(tmpdir(), 'drill-redis-')));
    await redis.up();
    return redis;
  }

  /** Starts redis-server on the same port and directory: it reloads its append-only file. */
  async up(): Promise<void> {
    this.proc = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'everysec',
      ],
      { stdio: 'ignore' },
    );
    const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    try {
      for (let i = 0; ; i++) {
        try {
          await client.connect();
          // a server still loading its file answers LOADING: wait for a real answer
          await client.ping();
          return;
        } catch (e) {
          if (i > 100) {
            throw e;
          }
          client.disconnect();
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    } finally {
      client.disconnect();
    }
  }

  /** A normal shutdown (SIGTERM): Redis flushes its append-only file and exits. */
  async down(): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null) {
      return;
    }
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  }

  async destroy(): Promise<void> {
    await this.down();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
