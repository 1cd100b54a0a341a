import { counter } from '@app/observability';
import Redis, { Cluster, Command } from 'ioredis';
import { RedisClient } from './redis-client-options';
import { ReplicaAckTimeoutError } from './replica-ack.error';

const replicaAckTimeouts = counter(
  'redis_replica_ack_timeouts_total',
  'Changes applied on the Redis master but confirmed by fewer replicas than REDIS_WAIT_REPLICAS in time (answered 503 REPLICAS_UNAVAILABLE), by action',
  ['action'],
);
const replicaWaits = counter(
  'redis_replica_waits_total',
  'Redis WAIT commands sent to confirm changes (one WAIT covers every change its connection carried before it)',
);

export interface ReplicaAckOptions {
  /** Replicas that must have a change before it is acknowledged; 0 turns the whole thing off. */
  replicas: number;
  /** Redis WAIT's timeout: below the client's command timeout (checked by the app's config). */
  timeoutMs: number;
}

/** What a write must do once its reply arrived: confirm it on the replicas (or throw), naming the action. */
export interface ReplicaAckTicket {
  confirm(action: string): Promise<void>;
}

const NOTHING_TO_WAIT_FOR: ReplicaAckTicket = { confirm: () => Promise.resolve() };

/**
 * Redis `WAIT numreplicas timeout` for writes, on a single Redis and on a Cluster.
 *
 * WAIT has no key and counts only the writes of the connection it is sent on: it must reach the master
 * that applied the write, on the connection that carried it. A single Redis client has one connection.
 * On a Cluster, ioredis keeps one connection per node and routes a keyed command to the master of its
 * slot (`cluster.slots[slot][0]`, the client's slot map); a keyless command would go to a random node.
 * So the ticket notes the master of the write's slot before the write and sends WAIT on that node's
 * connection (`cluster.nodes('master')`, the same instances the cluster routes through) afterwards. If the
 * slot map changed in between (failover, resharding, a MOVED the write followed) the write may have
 * gone elsewhere, and a WAIT on a connection that carried nothing answers at once with every replica:
 * the change is then treated as unconfirmed (503), never as confirmed.
 *
 * WAIT blocks its connection until it returns, and Redis runs a connection's WAITs one after the other:
 * N concurrent writes each sending their own WAIT to a replica that is down would stall the connection
 * N timeouts long. Instead each connection has at most one WAIT in flight; writes that finish meanwhile
 * share the next one (sent when it returns: it covers every write the connection carried before it).
 */
export class ReplicaAcks {
  constructor(
    private readonly client: RedisClient,
    readonly options: ReplicaAckOptions,
  ) {}

  get enabled(): boolean {
    return this.options.replicas > 0;
  }

  /**
   * Call right before the write; `key` is one of the write's keys, without the client's keyPrefix (a
   * script's keys share one slot). Then `confirm(action)` once the write answered with a change.
   */
  before(key: string): ReplicaAckTicket {
    if (!this.enabled) {
      return NOTHING_TO_WAIT_FOR;
    }
    if (!(this.client instanceof Cluster)) {
      const single = this.client;
      return { confirm: (action) => this.confirmOn(single, action) };
    }
    const cluster = this.client;
    const slot = new Command('get', [key], { keyPrefix: cluster.options.keyPrefix }).getSlot();
    const master = cluster.slots[slot]?.[0];
    return {
      confirm: (action) => {
        const now = cluster.slots[slot]?.[0];
        const node = now === master ? cluster.nodes('master').find((n) => nodeKey(n) === master) : undefined;
        return node ? this.confirmOn(node, action) : Promise.reject(this.refused(action, 0));
      },
    };
  }

  private async confirmOn(connection: Redis, action: string): Promise<void> {
    const acknowledged = await queueOf(connection, this.options).wait();
    if (acknowledged < this.options.replicas) {
      throw this.refused(action, acknowledged);
    }
  }

  private refused(action: string, acknowledged: number): ReplicaAckTimeoutError {
    replicaAckTimeouts.inc({ action });
    return new ReplicaAckTimeoutError(action, this.options.replicas, acknowledged, this.options.timeoutMs);
  }
}

/** Per connection (and setting), whoever asks: several stores may share a client and its connections. */
const queues = new WeakMap<Redis, Map<string, WaitQueue>>();

function queueOf(connection: Redis, options: ReplicaAckOptions): WaitQueue {
  let byOptions = queues.get(connection);
  if (!byOptions) {
    byOptions = new Map();
    queues.set(connection, byOptions);
  }
  const key = `${options.replicas}/${options.timeoutMs}`;
  let queue = byOptions.get(key);
  if (!queue) {
    queue = new WaitQueue(connection, options);
    byOptions.set(key, queue);
  }
  return queue;
}

function nodeKey(node: Redis): string {
  return `${node.options.host}:${node.options.port}`;
}

/** One connection's WAITs: one in flight at most, and one shared by every write that finished meanwhile. */
class WaitQueue {
  private inFlight: Promise<number> | null = null;
  private next: Promise<number> | null = null;

  constructor(
    private readonly connection: Redis,
    private readonly options: ReplicaAckOptions,
  ) {}

  wait(): Promise<number> {
    if (this.next) {
      return this.next;
    }
    if (!this.inFlight) {
      return this.send();
    }
    // The WAIT in flight may have reached Redis before this write did: it proves nothing for it.
    const settled = this.inFlight.then(
      () => undefined,
      () => undefined,
    );
    this.next = settled.then(() => {
      this.next = null;
      return this.send();
    });
    return this.next;
  }

  private send(): Promise<number> {
    replicaWaits.inc();
    const sent = this.connection.wait(this.options.replicas, this.options.timeoutMs).then(Number);
    this.inFlight = sent;
    const clear = () => {
      if (this.inFlight === sent) {
        this.inFlight = null;
      }
    };
    sent.then(clear, clear);
    return sent;
  }
}
