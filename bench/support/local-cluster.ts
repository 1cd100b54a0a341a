/**
 * The local 3-master + 3-replica Redis Cluster of `scripts/infra.sh cluster` (append-only files, 2 s
 * cluster-node-timeout) for the drill and the benchmarks, on their own ports (DRILL_CLUSTER_PORT,
 * BENCH_CLUSTER_PORT: default 7301..7307), never the tests' 7101, so a master the drill kills is never
 * one a test is using. Also: the master serving a key, killing it with SIGKILL, waiting for its replica's
 * promotion, restarting the node (it rejoins from its append-only file as a replica), CPU and command
 * counts summed over the nodes.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import Redis, { Cluster } from 'ioredis';
import { clusterPorts, clusterSeeds, onNode } from '../../test/support/cluster-nodes';
import { repoRoot } from './child';

const run = promisify(execFile);
const script = path.join(repoRoot, 'scripts', 'infra.sh');

/** A drill's or bench's Redis, single or Cluster: what the services are told and how the bench reads it. */
export interface BenchRedis {
  readonly mode: 'single' | 'cluster';
  /** REDIS_URL or REDIS_CLUSTER_NODES for the seat-api instances (the other one empty) */
  readonly serviceEnv: Record<string, string>;
  /** a plain client with the services' key prefix (typed as Redis: the drill's commands are the same) */
  client(keyPrefix: string): Redis;
  destroy(): Promise<void>;
}

export class LocalCluster implements BenchRedis {
  readonly mode = 'cluster';
  readonly ports: number[];
  /** true when the drill brought the cluster up (so it takes it down again) */
  private startedHere = false;

  private constructor(firstPort: number) {
    this.ports = clusterPorts(firstPort);
  }

  get seeds(): string {
    return clusterSeeds(this.ports);
  }

  get serviceEnv(): Record<string, string> {
    return { REDIS_URL: '', REDIS_CLUSTER_NODES: this.seeds };
  }

  private infra(command: 'up' | 'down' | 'status') {
    return run('bash', [script, 'cluster', command], {
      env: { ...process.env, REDIS_CLUSTER_PORT: String(this.ports[0]) },
      timeout: 180_000,
    });
  }

  /** Uses the cluster on these ports if it is whole, else starts (or repairs) it with infra.sh. */
  static async start(firstPort: number): Promise<LocalCluster> {
    const cluster = new LocalCluster(firstPort);
    const whole = await cluster.infra('status').then(
      () => true,
      () => false,
    );
    if (!whole) {
      await cluster.infra('up');
      cluster.startedHere = true;
    }
    return cluster;
  }

  client(keyPrefix: string): Redis {
    const seeds = this.ports.map((port) => ({ host: '127.0.0.1', port }));
    const c = new Cluster(seeds, { keyPrefix, scaleReads: 'master' });
    c.on('error', () => undefined);
    return c as unknown as Redis;
  }

  /** The port of the online master serving `key` (the full key, prefix included), asked of node `from`. */
  async masterOf(key: string, from = this.ports[0]): Promise<{ slot: number; port?: number }> {
    return onNode(from, async (r) => {
      const slot = Number(await r.call('CLUSTER', 'KEYSLOT', key));
      const shards = (await r.call('CLUSTER', 'SHARDS')) as unknown[][];
      const field = (kv: unknown[], name: string) => kv[kv.indexOf(name) + 1];
      for (const shard of shards) {
        const slots = field(shard, 'slots') as number[];
        const master = (field(shard, 'nodes') as unknown[][]).find(
          (n) => field(n, 'role') === 'master' && field(n, 'health') === 'online',
        );
        for (let i = 0; master && i < slots.length; i += 2) {
          if (slots[i] <= slot && slot <= slots[i + 1]) {
            return { slot, port: Number(field(master, 'port')) };
          }
        }
      }
      return { slot };
    });
  }

  /** kill -9 of the master serving `key`; answers its port. */
  async killMasterOf(key: string): Promise<{ slot: number; port: number }> {
    const { slot, port } = await this.masterOf(key);
    if (port === undefined) {
      throw new Error(`no online master serves ${key}`);
    }
    // the node names its own pid (its pid file is in the checkout that started the cluster)
    const info = await onNode(port, (r) => r.info('server'));
    process.kill(Number(/process_id:(\d+)/.exec(info)![1]), 'SIGKILL');
    return { slot, port };
  }

  /** Waits until a node other than `killed` serves `key` as an online master; answers that node and the wait. */
  async waitPromoted(key: string, killed: number, timeoutMs = 60_000): Promise<{ port: number; ms: number }> {
    const started = Date.now();
    const survivor = this.ports.find((p) => p !== killed)!;
    for (;;) {
      const { port } = await this.masterOf(key, survivor).catch(() => ({ port: undefined }));
      if (port !== undefined && port !== killed) {
        return { port, ms: Date.now() - started };
      }
      if (Date.now() - started > timeoutMs) {
        throw new Error(`no replica promoted for ${key} within ${timeoutMs / 1000} s`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Restarts stopped nodes (infra.sh cluster up: from their append-only files); answers the node's role. */
  async restartNodes(port: number): Promise<string> {
    await this.infra('up');
    const info = await onNode(port, (r) => r.info('replication'));
    return /role:(\w+)/.exec(info)?.[1] ?? 'unknown';
  }

  /** INFO of every node, `section` only (e.g. 'cpu', 'stats', 'commandstats'). */
  async infoOfNodes(section: string): Promise<string[]> {
    return Promise.all(this.ports.map((p) => onNode(p, (r) => r.info(section))));
  }

  async destroy(): Promise<void> {
    if (this.startedHere) {
      await this.infra('down');
    }
  }
}
