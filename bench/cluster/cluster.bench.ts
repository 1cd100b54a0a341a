/**
 * Holds over HTTP on a Redis Cluster vs a single Redis, the same service code side by side:
 *   - single: apps/seat-api on one redis-server with an append-only file (everysec, as docker-compose.yml
 *     and the cluster's nodes run);
 *   - single + replica: the same with one replica (also append-only) following it: the like-for-like
 *     side. single + replica vs single is the price of replication on this machine; cluster vs single +
 *     replica is the price of sharding and of the Cluster client (both replicate every write once);
 *   - cluster: the same on the local 3-master + 3-replica Redis Cluster (scripts/infra.sh cluster, ports
 *     BENCH_CLUSTER_PORT, default 7301..7307), REDIS_CLUSTER_NODES;
 *   - cluster, REDIS_WAIT_REPLICAS=1: every hold answered only once a replica has it (Redis WAIT).
 * Uncontended holds (1-4 distinct free seats of 10,000-seat events, 32 connections), the three interleaved
 * round by round, as fast as each answers. Reported: holds/s, latency, CPU per hold of the service process
 * and of Redis (all seven nodes for the cluster: replication included), and WAIT calls per hold (INFO
 * commandstats: shows the setting took effect; below 1 because holds finishing while a WAIT is in flight
 * on their connection share the next one). Target: cluster / single holds/s >= 0.9; the
 * like-for-like ratio and the price of REDIS_WAIT_REPLICAS=1 are reported, not held to a target.
 * Run: npm run bench:cluster   (BENCH_SECONDS=4 per run, BENCH_ROUNDS=3, BENCH_CLUSTER_PORT=7301: the
 * first of seven ports; BENCH_PROFILE=1: V8 CPU profiles of each service's last run in
 * bench/results/profile.tmp/cluster-<side>.cpuprofile)
 */
import 'reflect-metadata';
import Redis from 'ioredis';
import { loadavg } from 'node:os';
import { AofRedis } from '../drill/drill-infra';
import {
  eventsForRate,
  holdsPerSecond,
  loadRow,
  median,
  newEvents,
  Target,
  uncontended,
} from '../http/hold-load';
import { cpuMsOfInfo, processCpuMs } from '../support/cpu-time';
import { LocalCluster } from '../support/local-cluster';
import { profiledRun } from '../support/profile-run';
import { table, writeReport } from '../support/report';
import { BenchService, startService } from '../support/service';
import { ReplicatedRedis } from './replicated-redis';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CLUSTER_PORT = Number(process.env.BENCH_CLUSTER_PORT ?? 7301);

interface Side {
  target: Target;
  service: BenchService;
  /** CPU (ms) of every Redis process this side writes to, so far */
  redisCpuMs(): Promise<number>;
  /** WAIT commands its Redis processed so far */
  waits(): Promise<number>;
  eventsPerRun: number;
  runs: { holdsPerSecond: number; p50: number; p99: number; p999: number }[];
  cpu: { service: number; redis: number; holds: number; waits: number };
}

const waitCalls = (commandstats: string) => Number(/^cmdstat_wait:calls=(\d+)/m.exec(commandstats)?.[1] ?? 0);

async function main(): Promise<void> {
  const loadAtStart = loadavg();
  const single = await AofRedis.start();
  const replicated = await ReplicatedRedis.start();
  const cluster = await LocalCluster.start(CLUSTER_PORT);
  const prefix = `bench_cluster_${Date.now().toString(36)}`; // this run's keys on a cluster that may outlive it
  const singleInfo = new Redis(single.url);
  const services: BenchService[] = [];
  const sections: string[] = [];
  try {
    const env = { SWEEPER_ENABLED: 'false' };
    const start = async (name: string, extra: Record<string, string>) => {
      const s = await startService(name, extra.REDIS_URL, { ...env, ...extra });
      services.push(s);
      return s;
    };
    const svcSingle = await start('cluster_single', single.serviceEnv);
    const svcReplicated = await start('cluster_replicated', replicated.serviceEnv);
    const svcCluster = await start('cluster_cluster', {
      ...cluster.serviceEnv,
      REDIS_KEY_PREFIX: `${prefix}_a:`,
    });
    const svcWait = await start('cluster_wait1', {
      ...cluster.serviceEnv,
      REDIS_KEY_PREFIX: `${prefix}_b:`,
      REDIS_WAIT_REPLICAS: '1',
    });
    const jwt = await Promise.all(Array.from({ length: 5000 }, (_, u) => svcSingle.token(u)));
    type Nodes = { infoOfNodes(section: string): Promise<string[]> };
    const cpuOf = (nodes: Nodes) => async () =>
      (await nodes.infoOfNodes('cpu')).reduce((sum, info) => sum + cpuMsOfInfo(info), 0);
    const waitsOf = (nodes: Nodes) => async () =>
      (await nodes.infoOfNodes('commandstats')).reduce((sum, info) => sum + waitCalls(info), 0);
    const side = (name: string, service: BenchService, nodes?: Nodes): Side => ({
      target: {
        name,
        base: service.base,
        auth: (u) => ({ authorization: `Bearer ${jwt[u]}` }),
        newEvent: (seats) => service.createEvent(seats),
      },
      service,
      redisCpuMs: nodes ? cpuOf(nodes) : async () => cpuMsOfInfo(await singleInfo.info('cpu')),
      waits: nodes ? waitsOf(nodes) : async () => waitCalls(await singleInfo.info('commandstats')),
      eventsPerRun: 0,
      runs: [],
      cpu: { service: 0, redis: 0, holds: 0, waits: 0 },
    });
    const sides = [
      side('single Redis', svcSingle),
      side('single Redis + 1 replica', svcReplicated, replicated),
      side('cluster', svcCluster, cluster),
      side('cluster, REDIS_WAIT_REPLICAS=1', svcWait, cluster),
    ];
    const eventsFor = (s: Side, n: number) => newEvents(s.target, n);

    // warm-up (not reported): JIT, connections, script caches on every node. Twice: the first pass runs
    // cold (a run sized from it can run out of seats), the second's rate sizes the runs
    for (let pass = 0; pass < 2; pass++) {
      for (const s of sides) {
        const warm = await uncontended(s.target, await eventsFor(s, 2), SECONDS);
        s.eventsPerRun = eventsForRate(warm.requests / warm.seconds, SECONDS);
      }
    }
    const rows: (string | number)[][] = [];
    const ranOut: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const s of sides) {
        const events = await eventsFor(s, s.eventsPerRun);
        const pid = s.service.child.proc.pid!;
        const before = { service: processCpuMs(pid), redis: await s.redisCpuMs(), waits: await s.waits() };
        const label = `cluster-${s.target.name.replace(/\W+/g, '-')}`;
        const r = await profiledRun(
          s.service.child,
          label,
          () => uncontended(s.target, events, SECONDS),
          round === ROUNDS,
        );
        const holds = r.statuses[201] ?? 0;
        s.cpu.service += processCpuMs(pid) - before.service;
        s.cpu.redis += (await s.redisCpuMs()) - before.redis;
        s.cpu.waits += (await s.waits()) - before.waits;
        s.cpu.holds += holds;
        s.runs.push({
          holdsPerSecond: holdsPerSecond(r),
          p50: r.latencyMs.p50,
          p99: r.latencyMs.p99,
          p999: r.latencyMs.p999,
        });
        if (r.ranOut) {
          ranOut.push(`${s.target.name} #${round}`);
        }
        // a side that got faster gets more seats in the next round (requests/s: 409s are not capped)
        s.eventsPerRun = Math.max(s.eventsPerRun, eventsForRate(r.requests / r.seconds, SECONDS));
        rows.push(loadRow(`${s.target.name} #${round}`, r));
        console.log(rows.at(-1)!.join('  '));
      }
    }
    const perHold = (s: Side, what: 'service' | 'redis') =>
      Math.round((s.cpu[what] * 1000) / Math.max(1, s.cpu.holds));
    const med = (s: Side, what: 'holdsPerSecond' | 'p50' | 'p99' | 'p999') =>
      median(s.runs.map((r) => r[what]));
    const summaryTable = table(
      [
        'Redis',
        'holds/s (median)',
        'p50 / p99 / p99.9 ms (medians)',
        'service CPU per hold',
        'Redis CPU per hold (all its processes)',
        'WAIT calls per hold',
      ],
      sides.map((s) => [
        s.target.name,
        med(s, 'holdsPerSecond'),
        `${med(s, 'p50')} / ${med(s, 'p99')} / ${med(s, 'p999')}`,
        `${perHold(s, 'service')} µs`,
        `${perHold(s, 'redis')} µs`,
        (s.cpu.waits / Math.max(1, s.cpu.holds)).toFixed(2),
      ]),
    );
    const [one, replicatedOne, many, waiting] = sides;
    const ratio = med(many, 'holdsPerSecond') / med(one, 'holdsPerSecond');
    const likeForLike = med(many, 'holdsPerSecond') / med(replicatedOne, 'holdsPerSecond');
    const replication = med(replicatedOne, 'holdsPerSecond') / med(one, 'holdsPerSecond');
    const waitRatio = med(waiting, 'holdsPerSecond') / med(many, 'holdsPerSecond');
    // fewer WAITs than holds is by design: writes that finish while a WAIT is in flight on their
    // connection share the next one (libs/redis/src/wait-for-replicas.ts); none at all = setting unknown
    const waitWorked = waiting.cpu.waits > 0 && many.cpu.waits === 0;
    const summary = [
      `cluster / single Redis holds/s = ${ratio.toFixed(2)} (target >= 0.9: ${ratio >= 0.9 ? 'met' : 'NOT met'})`,
      `like for like, cluster / single Redis + 1 replica holds/s = ${likeForLike.toFixed(2)} (the price of sharding and the Cluster client; service CPU per hold ${perHold(many, 'service')} vs ${perHold(replicatedOne, 'service')} µs, Redis ${perHold(many, 'redis')} vs ${perHold(replicatedOne, 'redis')} µs)`,
      `replication on this machine, single Redis + 1 replica / single Redis holds/s = ${replication.toFixed(2)} (Redis CPU per hold ${perHold(replicatedOne, 'redis')} vs ${perHold(one, 'redis')} µs, replica included)`,
      waitWorked
        ? `REDIS_WAIT_REPLICAS=1 on the cluster: holds/s ${waitRatio.toFixed(2)} × the cluster without it, p99 ${med(waiting, 'p99')} ms vs ${med(many, 'p99')} ms`
        : `REDIS_WAIT_REPLICAS=1: ${waiting.cpu.waits} WAIT calls for ${waiting.cpu.holds} holds, ${many.cpu.waits} without it: the setting did not take effect as expected, so no price is reported`,
      ranOut.length > 0
        ? `INVALID: ${ranOut.join(', ')} ran out of seats (holds/s capped by the bench)`
        : 'no run ran out of seats',
    ];
    const load = `load average (1 / 5 / 15 min) at the start: ${loadAtStart.map((l) => l.toFixed(2)).join(' / ')}`;
    const t1 = table(
      ['run', 'requests', 'holds/s', 'p50 ms', 'p99 ms', 'p99.9 ms', '409 share', 'statuses'],
      rows,
    );
    console.log(`\n${t1}\n\n${summaryTable}\n\n${summary.join('\n')}\n${load}`);
    sections.push(
      `## Uncontended holds (1-4 seats each), 32 connections, ${SECONDS} s per run, ${ROUNDS} interleaved rounds`,
      '',
      `- ${load}`,
      '- single Redis: one redis-server, appendonly yes, appendfsync everysec; single Redis + 1 replica: the same and one replica (same persistence) following it; cluster: 3 masters + 4 replicas, the same persistence, cluster-node-timeout 2000 ms; all on this machine (2 cores, shared with the load generator and the services)',
      '',
      t1,
      '',
      summaryTable,
      '',
      ...summary.map((l) => `- ${l}`),
      '',
    );
  } finally {
    await Promise.all(services.map((s) => s.stop()));
    singleInfo.disconnect();
    await single.destroy();
    await replicated.destroy();
    await cluster.destroy();
  }
  const file = writeReport(
    'cluster',
    'Holds over HTTP: Redis Cluster vs a single Redis',
    'npm run bench:cluster',
    sections,
  );
  console.log(`\nreport: ${file}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
