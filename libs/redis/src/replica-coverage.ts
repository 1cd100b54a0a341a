import { gauge } from '@app/observability';
import Redis, { Cluster } from 'ioredis';
import { SLOTS } from './key-slot';
import { RedisClient } from './redis-client-options';

const refusedShare = gauge(
  'redis_writes_refused_share',
  'Share of Redis hash slots (1 on a single Redis) whose master has fewer answering replicas than REDIS_WAIT_REPLICAS: holds, extends, releases and confirms there answer 503 REPLICAS_UNAVAILABLE (0 when REDIS_WAIT_REPLICAS is 0)',
);

/**
 * A replica counts as answering while it acknowledged its master's stream within this many seconds
 * (INFO replication `lag`, seconds since its last REPLCONF ACK, sent every second by a live replica).
 */
export const MAX_REPLICA_LAG_SECONDS = 2;

/** One master that cannot confirm writes with as many replicas as wanted. */
export interface ShortMaster {
  /** host:port as the client reaches it. */
  master: string;
  /** Replicas online with a lag of at most MAX_REPLICA_LAG_SECONDS. */
  answering: number;
  /** Replicas the master knows (connected_slaves), answering or not. */
  connected: number;
  /** Hash slots it serves (16384 on a single Redis). */
  slots: number;
}

export interface ReplicaCoverage {
  wanted: number;
  /** Masters with fewer answering replicas than wanted (or that did not answer INFO). */
  short: ShortMaster[];
  /** Share of hash slots on those masters, 0..1: the share of holds that answer 503 REPLICAS_UNAVAILABLE. */
  refusedShare: number;
}

/**
 * Which masters cannot confirm writes on `wanted` replicas right now (REDIS_WAIT_REPLICAS): read from
 * each master's INFO replication, on the client's own connections (a plain command: it waits behind no
 * WAIT, see wait-for-replicas.ts). Sets the redis_writes_refused_share gauge.
 */
export async function replicaCoverage(client: RedisClient, wanted: number): Promise<ReplicaCoverage> {
  if (wanted <= 0) {
    refusedShare.set(0);
    return { wanted, short: [], refusedShare: 0 };
  }
  const masters = mastersOf(client);
  const short: ShortMaster[] = [];
  await Promise.all(
    masters.map(async ({ address, node, slots }) => {
      const info = await node.info('replication').catch(() => '');
      const replicas = replicasIn(info);
      const answering = replicas.filter((r) => r.online && r.lag <= MAX_REPLICA_LAG_SECONDS).length;
      if (answering < wanted) {
        short.push({ master: address, answering, connected: replicas.length, slots });
      }
    }),
  );
  short.sort((a, b) => a.master.localeCompare(b.master));
  const share = Math.round((short.reduce((n, m) => n + m.slots, 0) / SLOTS) * 1000) / 1000;
  refusedShare.set(share);
  return { wanted, short, refusedShare: share };
}

function mastersOf(client: RedisClient): Array<{ address: string; node: Redis; slots: number }> {
  if (!(client instanceof Cluster)) {
    return [{ address: `${client.options.host}:${client.options.port}`, node: client, slots: SLOTS }];
  }
  const slotsOf = new Map<string, number>();
  for (const owners of client.slots) {
    const master = owners?.[0];
    if (master) {
      slotsOf.set(master, (slotsOf.get(master) ?? 0) + 1);
    }
  }
  // a node the slot map gives no slot (a master that failed and was replaced) serves no write
  return client
    .nodes('master')
    .map((node) => {
      const address = `${node.options.host}:${node.options.port}`;
      return { address, node, slots: slotsOf.get(address) ?? 0 };
    })
    .filter((m) => m.slots > 0);
}

/** `slaveN:ip=...,port=...,state=online,offset=...,lag=0` lines of INFO replication. */
function replicasIn(info: string): Array<{ online: boolean; lag: number }> {
  return [...info.matchAll(/^slave\d+:(.*)$/gm)].map((m) => {
    const fields = new Map(
      m[1]
        .trim()
        .split(',')
        .map((kv) => kv.split('=') as [string, string]),
    );
    return { online: fields.get('state') === 'online', lag: Number(fields.get('lag') ?? Infinity) };
  });
}
