/**
 * The local Redis Cluster's nodes as the tests see them (scripts/infra.sh cluster up, REDIS_CLUSTER_PORT):
 * who is master of a key's slot, which replica follows it, and each node's process (for SIGSTOP / SIGKILL).
 */
import Redis from 'ioredis';
import { eventually } from './eventually';

/** The cluster's seven nodes (3 masters + 4 replicas, scripts/redis-cluster.sh). */
export const clusterPorts = (first = Number(process.env.REDIS_CLUSTER_PORT ?? 7101)): number[] =>
  [0, 1, 2, 3, 4, 5, 6].map((i) => first + i);

/** The nodes as REDIS_CLUSTER_NODES names them: `127.0.0.1:<port>,...`. */
export const clusterSeeds = (ports: readonly number[]): string =>
  ports.map((p) => `127.0.0.1:${p}`).join(',');

/** One plain connection to one node, closed after use. */
export async function onNode<T>(port: number, run: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis(port, '127.0.0.1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    retryStrategy: () => null, // one connection: a node that is down (killed by a test) is not retried
  });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await run(r);
  } finally {
    // a connection already gone ('end') is left alone: ioredis's disconnect() would start its 2 s
    // disconnect timer on the closed socket, which nothing clears, and hold jest open that long
    if (r.status !== 'end') {
      r.disconnect();
    }
  }
}

export interface ClusterNode {
  id: string;
  port: number;
  master: boolean;
  /** The master a replica follows ('-' for a master). */
  masterId: string;
  /** Marked failed (fail or fail?) by the node asked. */
  failing: boolean;
  slots: Array<[number, number]>;
}

/** CLUSTER NODES as seen by the node on `from`. */
export async function clusterNodes(from: number): Promise<ClusterNode[]> {
  const text = String(await onNode(from, (r) => r.call('CLUSTER', 'NODES')));
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, masterId, , , , , ...slots] = line.split(' ');
      const port = Number(/:(\d+)@/.exec(address)![1]);
      const flagList = flags.split(',');
      return {
        id,
        port,
        master: flagList.includes('master'),
        masterId,
        failing: flagList.includes('fail') || flagList.includes('fail?'),
        slots: slots
          .filter((s) => !s.startsWith('['))
          .map((s) => {
            const [a, b] = s.split('-').map(Number);
            return [a, b ?? a] as [number, number];
          }),
      };
    });
}

/** The port of the master serving `key`'s slot (with the client's prefix, as Redis sees the key). */
export async function masterOfKey(key: string, from: number): Promise<number | undefined> {
  const slot = Number(await onNode(from, (r) => r.call('CLUSTER', 'KEYSLOT', key)));
  const nodes = await clusterNodes(from);
  return nodes.find((n) => n.master && !n.failing && n.slots.some(([a, b]) => a <= slot && slot <= b))?.port;
}

/** The port of a replica following the master on `masterPort`. */
export async function replicaOf(masterPort: number): Promise<number> {
  const nodes = await clusterNodes(masterPort);
  const master = nodes.find((n) => n.port === masterPort)!;
  const replica = nodes.find((n) => !n.master && n.masterId === master.id && !n.failing);
  if (!replica) {
    throw new Error(`no replica follows 127.0.0.1:${masterPort}`);
  }
  return replica.port;
}

/** The ports of the replicas following the master on `masterPort` (not marked failing). */
export async function replicasOf(masterPort: number): Promise<number[]> {
  const nodes = await clusterNodes(masterPort);
  const master = nodes.find((n) => n.port === masterPort)!;
  return nodes.filter((n) => !n.master && n.masterId === master.id && !n.failing).map((n) => n.port);
}

/** The pid of the redis-server on `port` (it names its own: a pid file exists only in the starter's checkout). */
export async function pidOf(port: number): Promise<number> {
  const info = await onNode(port, (r) => r.info('server'));
  return Number(/process_id:(\d+)/.exec(info)![1]);
}

/**
 * The port of the replica following `masterPort`, once it is in sync (a node that just rejoined may still
 * be flagged failing, or still loading the master's snapshot).
 */
export async function syncedReplicaOf(masterPort: number, timeoutMs = 30_000): Promise<number> {
  let port = 0;
  await eventually(
    async () => {
      port = await replicaOf(masterPort).catch(() => 0);
      return (
        port !== 0 &&
        /master_link_status:up/.test(await onNode(port, (r) => r.info('replication')).catch(() => ''))
      );
    },
    timeoutMs,
    `a replica of 127.0.0.1:${masterPort} in sync`,
  );
  return port;
}
