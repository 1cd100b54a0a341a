/**
 * A single Redis with one replica, both with the append-only file (everysec) the cluster's nodes and
 * AofRedis use: the like-for-like side of bench:cluster. Against a single Redis without a replica it
 * shows what replication costs on this machine (the replica's CPU, the master feeding it); against the
 * Cluster, what sharding and the Cluster client cost on top. The services write to the master only.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { onNode } from '../../test/support/cluster-nodes';
import { freePort } from '../../test/support/private-redis';

export class ReplicatedRedis {
  private readonly procs: ChildProcess[] = [];
  private readonly dirs: string[] = [];

  private constructor(
    readonly masterPort: number,
    readonly replicaPort: number,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.masterPort}`;
  }

  get ports(): number[] {
    return [this.masterPort, this.replicaPort];
  }

  get serviceEnv(): Record<string, string> {
    return { REDIS_URL: this.url, REDIS_CLUSTER_NODES: '' };
  }

  /** Starts the master, then the replica, and waits until the replica is in sync. */
  static async start(): Promise<ReplicatedRedis> {
    const masterPort = await freePort();
    let replicaPort = await freePort();
    while (replicaPort === masterPort) {
      replicaPort = await freePort();
    }
    const r = new ReplicatedRedis(masterPort, replicaPort);
    try {
      r.serve(masterPort, []);
      await ping(masterPort);
      r.serve(replicaPort, ['--replicaof', '127.0.0.1', String(masterPort)]);
      await r.untilInSync();
    } catch (e) {
      await r.destroy();
      throw e;
    }
    return r;
  }

  private serve(port: number, extra: string[]): void {
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-replicated-redis-'));
    this.dirs.push(dir);
    const persistence = ['--appendonly', 'yes', '--appendfsync', 'everysec', '--save', ''];
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, ...persistence, ...extra];
    this.procs.push(spawn('redis-server', args, { stdio: 'ignore' }));
  }

  private async untilInSync(): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const info = await onNode(this.replicaPort, (c) => c.info('replication')).catch(() => '');
      if (/master_link_status:up/.test(info)) {
        return;
      }
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error(`replica on ${this.replicaPort} not in sync with ${this.masterPort} within 20 s`);
  }

  /** INFO `section` of the master and of the replica. */
  infoOfNodes(section: string): Promise<string[]> {
    return Promise.all(this.ports.map((p) => onNode(p, (c) => c.info(section))));
  }

  async destroy(): Promise<void> {
    await Promise.all(
      this.procs.map((proc) => {
        if (proc.exitCode !== null || proc.signalCode !== null) {
          return Promise.resolve();
        }
        const exited = new Promise((res) => proc.once('exit', res));
        proc.kill('SIGTERM');
        return exited;
      }),
    );
    for (const dir of this.dirs) {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

async function ping(port: number): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await onNode(port, (c) => c.ping());
      return;
    } catch (e) {
      if (i > 100) {
        throw e;
      }
      await new Promise((res) => setTimeout(res, 100));
    }
  }
}
