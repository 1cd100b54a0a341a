/**
 * How a script whose key count is passed per call (the lock's) goes out on an auto-pipelining Cluster
 * client, side by side on the bench cluster (BENCH_CLUSTER_PORT, default 7301..7307):
 *   - RedisScript (libs/redis script-commands.ts): EVALSHA, batched with the other commands of its
 *     keys' master in the turn (what the lock and the rate-limit sync use);
 *   - defineCommand, the name in autoPipeliningIgnoredCommands (ioredis's documented way to keep such a
 *     script out of a batch it would break): each call sent on its own.
 * Per turn, for each of TAGS hash tags spread over the three masters, a seat-lock section as the hold
 * path sends it: the lock's acquire, one write (SET), the lock's release, all in the same turn (the real
 * lock scripts, lua/manifest.ts). Reported: socket reads Redis made per section (INFO stats
 * total_reads_processed summed over the masters: one per batch it received) and ms per turn, sides
 * interleaved turn by turn.
 * Run: node -r @swc-node/register bench/cluster/script-routing.bench.ts (BENCH_TURNS=200, BENCH_TAGS=30)
 */
import { randomUUID } from 'node:crypto';
import Redis, { Cluster } from 'ioredis';
import { keySlot, luaScript, RedisScript } from '../../libs/redis/src';
import { LOCK_LUA_DIR, LOCK_SCRIPTS } from '../../libs/distributed-lock/src/lua/manifest';
import { LocalCluster } from '../support/local-cluster';
import { table, writeReport } from '../support/report';

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const TAGS = Number(process.env.BENCH_TAGS ?? 30);
const CLUSTER_PORT = Number(process.env.BENCH_CLUSTER_PORT ?? 7301);
const PREFIX = 'bench:script-routing:';

const ACQUIRE = luaScript(LOCK_LUA_DIR, LOCK_SCRIPTS.dlockAcquire);
const RELEASE = luaScript(LOCK_LUA_DIR, LOCK_SCRIPTS.dlockRelease);

type Section = (tag: string) => Promise<unknown>;
interface Defined {
  benchAcquire(...a: (string | number)[]): Promise<unknown>;
  benchRelease(...a: (string | number)[]): Promise<unknown>;
}

function client(cluster: LocalCluster, ignored: string[]): Cluster {
  const c = new Cluster(
    cluster.ports.map((port) => ({ host: '127.0.0.1', port })),
    {
      keyPrefix: PREFIX,
      scaleReads: 'master',
      enableAutoPipelining: true,
      lazyConnect: true,
      autoPipeliningIgnoredCommands: ignored,
    },
  );
  c.on('error', () => undefined);
  return c;
}

/** The section on `redis`: acquire (fence counter + two seat keys), the write, release; one turn. */
function section(redis: Cluster, acquire: Section, release: Section): Section {
  return (tag) => Promise.all([acquire(tag), redis.set(`{${tag}}:data`, 'x', 'PX', 10_000), release(tag)]);
}
const lockKeys = (tag: string) => [`lock:{${tag}}:A1`, `lock:{${tag}}:A2`];
const owner = randomUUID();

async function main(): Promise<void> {
  const cluster = await LocalCluster.start(CLUSTER_PORT);
  const viaScript = client(cluster, []);
  const viaDefined = client(cluster, ['benchAcquire', 'benchRelease']);
  viaDefined.defineCommand('benchAcquire', { lua: ACQUIRE });
  viaDefined.defineCommand('benchRelease', { lua: RELEASE });
  const defined = viaDefined as unknown as Defined;
  const [acquireScript, releaseScript] = [new RedisScript(ACQUIRE), new RedisScript(RELEASE)];
  const sides = {
    'RedisScript (EVALSHA, batched)': section(
      viaScript,
      (t) => acquireScript.run(viaScript, [`fence:{${t}}`, ...lockKeys(t)], [owner, 10_000]),
      (t) => releaseScript.run(viaScript, lockKeys(t), [owner]),
    ),
    'defineCommand + autoPipeliningIgnoredCommands': section(
      viaDefined,
      (t) => defined.benchAcquire(3, `fence:{${t}}`, ...lockKeys(t), owner, 10_000),
      (t) => defined.benchRelease(2, ...lockKeys(t), owner),
    ),
  };
  try {
    await Promise.all([viaScript.connect(), viaDefined.connect()]);
    const masters = viaScript.nodes('master').map((n) => Number(n.options.port));
    const stats = masters.map((port) => new Redis(port, '127.0.0.1'));
    const reads = async () =>
      (await Promise.all(stats.map((r) => r.info('stats')))).reduce(
        (sum, info) => sum + Number(/total_reads_processed:(\d+)/.exec(info)![1]),
        0,
      );
    const tags = Array.from({ length: TAGS }, (_, i) => `${randomUUID()}-${i}`);
    const onMasters = new Set(tags.map((t) => viaScript.slots[keySlot(`{${t}}`)][0])).size;
    const measured = Object.fromEntries(Object.keys(sides).map((s) => [s, { reads: 0, ms: 0 }]));
    const infoOnly = -((await reads()) - (await reads())); // what reading the stats itself adds
    for (const run of Object.values(sides)) {
      await Promise.all(tags.map(run)); // warm: scripts loaded, connections open
    }
    for (let turn = 0; turn < TURNS; turn++) {
      for (const [name, run] of Object.entries(sides)) {
        const before = await reads();
        const started = performance.now();
        await Promise.all(tags.map(run));
        measured[name].ms += performance.now() - started;
        measured[name].reads += (await reads()) - before - infoOnly;
      }
    }
    const sections = TURNS * TAGS;
    const base = measured['RedisScript (EVALSHA, batched)'];
    const rows = Object.entries(measured).map(([name, m]) => [
      name,
      (m.reads / sections).toFixed(2),
      (m.ms / TURNS).toFixed(2),
      (m.ms / base.ms).toFixed(2),
    ]);
    const report = [
      `${TAGS} sections per turn (tags on ${onMasters} masters), ${TURNS} turns per side, interleaved.`,
      '',
      table(['side', 'socket reads by Redis per section', 'ms per turn', 'time vs RedisScript'], rows),
    ];
    console.log(report.join('\n'));
    const file = writeReport(
      'script-routing',
      'Per-call key count scripts on an auto-pipelining Cluster client',
      'node -r @swc-node/register bench/cluster/script-routing.bench.ts',
      report,
    );
    console.log(`written: ${file}`);
    stats.forEach((r) => r.disconnect());
  } finally {
    viaScript.disconnect();
    viaDefined.disconnect();
    await cluster.destroy();
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
