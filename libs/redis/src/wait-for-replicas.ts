import { counter } from '@app/observability';
import Redis, { Cluster } from 'ioredis';
import { keySlot } from './key-slot';
import { RedisClient } from './redis-client-options';
import { ReplicaAckTimeoutError } from './replica-ack.error';
import { slotTag } from './slot-tag';

const replicaAckTimeouts = counter(
  'redis_replica_ack_timeouts_total',
  'Changes applied on the Redis master but confirmed by fewer replicas than REDIS_WAIT_REPLICAS in time (answered 503 REPLICAS_UNAVAILABLE), by action',
  ['action'],
);
const replicaWaits = counter(
  'redis_replica_waits_total',
  'Redis WAIT commands sent to confirm changes (one WAIT covers every change its master applied before it)',
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

/** How long the marker key a WAIT rides on lives: it only has to be written, never read. */
const MARKER_TTL_MS = 60_000;

/**
 * Redis `WAIT numreplicas timeout` for writes, on a single Redis and on a Cluster, without slowing
 * anything else down.
 *
 * WAIT blocks the connection it is sent on until it returns: on the client every other command of the
 * instance shares, one replica that stops answering would hold every read (a seat map, a GET) one WAIT
 * timeout behind it. So WAITs go on connections of their own, one per master (`AckConnections`).
 *
 * WAIT counts the replication offset of its connection's own last write, and the change was written on
 * the shared connection. So the WAIT's connection first writes a marker key in the change's slot (same
 * master): that write lands after the change in the master's replication stream, and a replica that
 * acknowledged the marker has the change. Marker and WAIT go out in one round trip.
 *
 * On a Cluster the ticket notes the master of the write's slot before the write; if the slot map
 * changed by the confirmation (failover, resharding, a MOVED the write followed) the write may have gone
 * elsewhere, and the change is treated as unconfirmed (503), never as confirmed. A marker the noted node
 * refuses (it is no longer master of the slot: MOVED, READONLY) counts as no replica too.
 *
 * Each WAIT connection has at most one WAIT in flight; changes that finish meanwhile share the next one
 * (sent when it returns: its marker follows every change the master applied before it).
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
    const connections = ackConnectionsOf(this.client);
    if (!(this.client instanceof Cluster)) {
      return { confirm: (action) => this.confirmOn(connections.single(), MARKER, action) };
    }
    const cluster = this.client;
    const slot = keySlot(`${cluster.options.keyPrefix ?? ''}${key}`);
    const master = cluster.slots[slot]?.[0];
    return {
      confirm: (action) => {
        const now = cluster.slots[slot]?.[0];
        if (!master || now !== master) {
          return Promise.reject(this.refused(action, master ?? 'unknown', 0));
        }
        return this.confirmOn(connections.node(master), `${MARKER}:{${slotTag(slot)}}`, action);
      },
    };
  }

  private async confirmOn(connection: AckConnection, marker: string, action: string): Promise<void> {
    const acknowledged = await connection.queue(this.options).wait(marker);
    if (acknowledged < this.options.replicas) {
      throw this.refused(action, connection.address, acknowledged);
    }
  }

  private refused(action: string, master: string, acknowledged: number): ReplicaAckTimeoutError {
    replicaAckTimeouts.inc({ action });
    return new ReplicaAckTimeoutError(
      action,
      this.options.replicas,
      acknowledged,
      this.options.timeoutMs,
      master,
    );
  }
}

/** The marker key's name, under the client's key prefix; on a Cluster with the slot's hash tag. */
const MARKER = 'replica-ack';

/** One master's WAIT connection and its queues (one per setting: several stores may share a client). */
class AckConnection {
  private readonly queues = new Map<string, WaitQueue>();
  private connecting: Promise<void> | null = null;

  constructor(
    readonly address: string,
    private readonly redis: Redis,
  ) {
    redis.on('error', () => undefined); // each WAIT that fails answers for itself
  }

  queue(options: ReplicaAckOptions): WaitQueue {
    const key = `${options.replicas}/${options.timeoutMs}`;
    let queue = this.queues.get(key);
    if (!queue) {
      queue = new WaitQueue(this, options);
      this.queues.set(key, queue);
    }
    return queue;
  }

  /**
   * Marker write and WAIT in one round trip: the number of replicas that have the marker. 0 when the
   * node refused the marker (no longer master of the slot) or the connection failed (the master died
   * under the WAIT): the change stands on the master, unconfirmed, as after a WAIT that timed out.
   */
  async markAndWait(marker: string, options: ReplicaAckOptions): Promise<number> {
    try {
      if (this.redis.status === 'wait') {
        this.connecting ??= this.redis.connect().finally(() => (this.connecting = null));
      }
      await this.connecting;
      const replies = await this.redis
        .pipeline()
        .set(marker, '', 'PX', MARKER_TTL_MS)
        .wait(options.replicas, options.timeoutMs)
        .exec();
      const [[markerError], [waitError, acknowledged]] = replies ?? [[new Error('no reply')], [null, 0]];
      return markerError || waitError ? 0 : Number(acknowledged);
    } catch {
      return 0;
    }
  }

  close(): void {
    this.redis.disconnect();
  }
}

/**
 * The WAIT connections of one shared client: for a single Redis a duplicate of it, for a Cluster one
 * connection per master address (with the Cluster's node options), made when first needed. Closed when
 * the shared client ends.
 */
class AckConnections {
  private readonly byAddress = new Map<string, AckConnection>();

  constructor(private readonly client: RedisClient) {
    client.once('end', () => this.closeAll());
  }

  single(): AckConnection {
    return this.get('single', () => {
      const single = this.client as Redis;
      return new AckConnection(
        `${single.options.host}:${single.options.port}`,
        single.duplicate({
          lazyConnect: true,
          enableAutoPipelining: false,
          connectionName: `${single.options.connectionName ?? 'redis'}-replica-acks`,
        }),
      );
    });
  }

  node(address: string): AckConnection {
    const cluster = this.client as Cluster;
    if (!this.byAddress.has(address)) {
      this.forgetFormerMasters(cluster);
    }
    return this.get(address, () => {
      const at = address.lastIndexOf(':');
      const options = cluster.options.redisOptions ?? {};
      return new AckConnection(
        address,
        new Redis({
          ...options,
          host: address.slice(0, at),
          port: Number(address.slice(at + 1)),
          keyPrefix: cluster.options.keyPrefix,
          lazyConnect: true,
          enableOfflineQueue: false,
          enableAutoPipelining: false,
          connectionName: `${options.connectionName ?? 'redis'}-replica-acks`,
        }),
      );
    });
  }

  /** A node that failed or became a replica: its connection would only keep reconnecting. */
  private forgetFormerMasters(cluster: Cluster): void {
    const masters = new Set(cluster.nodes('master').map((n) => `${n.options.host}:${n.options.port}`));
    for (const [address, connection] of this.byAddress) {
      if (!masters.has(address)) {
        connection.close();
        this.byAddress.delete(address);
      }
    }
  }

  private get(key: string, make: () => AckConnection): AckConnection {
    let connection = this.byAddress.get(key);
    if (!connection) {
      connection = make();
      this.byAddress.set(key, connection);
    }
    return connection;
  }

  private closeAll(): void {
    for (const c of this.byAddress.values()) {
      c.close();
    }
    this.byAddress.clear();
  }
}

const ackConnections = new WeakMap<RedisClient, AckConnections>();

function ackConnectionsOf(client: RedisClient): AckConnections {
  let connections = ackConnections.get(client);
  if (!connections) {
    connections = new AckConnections(client);
    ackConnections.set(client, connections);
  }
  return connections;
}

/** One connection's WAITs: one in flight at most, and one shared by every write that finished meanwhile. */
class WaitQueue {
  private inFlight: Promise<number> | null = null;
  private next: Promise<number> | null = null;

  constructor(
    private readonly connection: AckConnection,
    private readonly options: ReplicaAckOptions,
  ) {}

  wait(marker: string): Promise<number> {
    if (this.next) {
      return this.next;
    }
    if (!this.inFlight) {
      return this.send(marker);
    }
    // The marker in flight may have been written before this change: it proves nothing for it.
    const settled = this.inFlight.then(
      () => undefined,
      () => undefined,
    );
    this.next = settled.then(() => {
      this.next = null;
      return this.send(marker);
    });
    return this.next;
  }

  private send(marker: string): Promise<number> {
    replicaWaits.inc();
    const sent = this.connection.markAndWait(marker, this.options);
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
