/**
 * A Redis Cluster master killed with `kill -9` while the seat API takes holds (replica-wait-cluster
 * e2e): which holds answered 201 are gone once the master's replica is promoted, and what every other
 * answer was.
 *
 * On loopback a replica receives each write within microseconds, so a master killed at a random moment
 * almost never takes an acknowledged write with it, and a test of that could not fail. The window a real
 * network opens is opened on purpose: the replica is paused (SIGSTOP) and the master cuts its replication
 * link (CLIENT KILL TYPE replica), holds keep coming for a moment, then the master is killed and the
 * replica resumed: it has every write up to the cut and none after, and is promoted with that.
 */
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import { clusterPorts, masterOfKey, onNode, pidOf, replicasOf, syncedReplicaOf } from './cluster-nodes';
import { eventually } from './eventually';
import { Api, createEvent, sleep, startApi } from './seat-api';

export interface FailoverRun {
  summary: {
    created: number;
    /** 201 answers given while the replication link was cut (only the master had those holds). */
    createdWhileCut: number;
    /** 201 answers for the event on a master that was not killed, from the cut to the end. */
    createdElsewhereDuringElection: number;
    refusedAfterPromotion: number;
    answers: Record<string, number>;
  };
  /** Holds answered 201 that the cluster no longer has (or no longer has ACTIVE). */
  lost: string[];
  otherAnswers: Array<{ status: number; code?: string; retryAfter: string | null }>;
}

type Phase = 'before' | 'cut' | 'election' | 'promoted';

export async function failoverUnderLoad(env: Record<string, string>): Promise<FailoverRun> {
  const api = await startApi(env);
  try {
    return await run(api);
  } finally {
    await api.close();
  }
}

async function run(api: Api): Promise<FailoverRun> {
  const store = api.app.get(HoldStore);
  const prefix = process.env.REDIS_KEY_PREFIX!;
  const ports = clusterPorts();
  const masterOf = (eventId: string, from: number) =>
    masterOfKey(`${prefix}${store.layout.eventKeys(eventId).holds}`, from);
  // on a master with one replica (not the one with the spare): its promoted replica has none of its own
  // until replica migration gives it the spare
  let victim = await createEvent(api, 10, 300);
  while ((await replicasOf((await masterOf(victim, ports[0]))!)).length !== 1) {
    victim = await createEvent(api, 10, 300);
  }
  const killed = (await masterOf(victim, ports[0]))!;
  let bystander = await createEvent(api, 1, 300);
  while ((await masterOf(bystander, ports[0])) === killed) {
    bystander = await createEvent(api, 1, 300);
  }
  const replica = await syncedReplicaOf(killed);
  const survivor = ports.find((p) => p !== killed)!;
  const token = await api.token('loader');

  let phase: Phase = 'before';
  let stop = false;
  const seats = { [victim]: 0, [bystander]: 0 };
  const created: Array<{ holdId: string; phase: Phase }> = [];
  let createdElsewhereDuringElection = 0;
  const others: Array<{ status: number; code?: string; retryAfter: string | null; phase: Phase }> = [];

  const loop = async (worker: number) => {
    for (let i = 0; !stop; i++) {
      const eventId = i % 4 === 3 ? bystander : victim; // most load on the master that dies
      const n = seats[eventId]++;
      const rows = eventId === victim ? 10 : 1;
      if (n >= rows * 300) {
        throw new Error(`worker ${worker}: out of seats in ${eventId}`);
      }
      const seat = `S-${String.fromCharCode(65 + Math.floor(n / 300))}-${(n % 300) + 1}`;
      const at = phase;
      const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
        token,
        body: { seatIds: [seat], ttlSeconds: 600 },
      });
      if (r.status === 201 && eventId === victim) {
        created.push({ holdId: r.body.holdId as string, phase: at });
      } else if (r.status === 201) {
        createdElsewhereDuringElection += at === 'before' ? 0 : 1;
      } else {
        others.push({
          status: r.status,
          code: r.body?.code,
          retryAfter: r.headers.get('retry-after'),
          phase: at,
        });
        await sleep(50); // what a client told Retry-After does, shortened: keep the load going
      }
    }
  };
  const workers = [0, 1, 2, 3].map(loop);

  try {
    await eventually(() => created.length >= 30, 30_000, '30 holds before the failover');
    const replicaPid = await pidOf(replica);
    const masterPid = await pidOf(killed);
    process.kill(replicaPid, 'SIGSTOP');
    try {
      await onNode(killed, (r) => r.call('CLIENT', 'KILL', 'TYPE', 'replica'));
      phase = 'cut';
      await sleep(800);
      process.kill(masterPid, 'SIGKILL');
      phase = 'election';
    } finally {
      process.kill(replicaPid, 'SIGCONT');
    }
    await eventually(async () => (await masterOf(victim, survivor)) === replica, 60_000, 'replica promoted');
    phase = 'promoted';
    // load on the promoted master for a while: the service answers there again
    const answeredAfter = () =>
      created.filter((c) => c.phase === 'promoted').length +
      others.filter((o) => o.phase === 'promoted').length;
    await eventually(() => answeredAfter() >= 40, 30_000, '40 answers after the promotion');
  } finally {
    stop = true;
    await Promise.allSettled(workers);
  }

  const lost: string[] = [];
  for (const { holdId } of created) {
    const hold = await store.getHold(holdId);
    if (hold?.status !== 'ACTIVE') {
      lost.push(holdId);
    }
  }
  const answers: Record<string, number> = { '201': created.length };
  for (const o of others) {
    const key = `${o.status} ${o.code ?? ''}`.trim();
    answers[key] = (answers[key] ?? 0) + 1;
  }
  return {
    summary: {
      created: created.length,
      createdWhileCut: created.filter((c) => c.phase === 'cut').length,
      createdElsewhereDuringElection,
      refusedAfterPromotion: others.filter((o) => o.phase === 'promoted' && o.code === 'REPLICAS_UNAVAILABLE')
        .length,
      answers,
    },
    lost,
    otherAnswers: others.map(({ status, code, retryAfter }) => ({ status, code, retryAfter })),
  };
}
