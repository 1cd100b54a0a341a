/**
 * A TCP proxy on a free loopback port in front of a real server (PostgreSQL here), that can go silent the
 * way a partitioned or frozen host does: the sockets stay open, nothing is refused or reset, and no byte
 * moves in either direction until it is thawed. What was sent meanwhile is delivered then, in order, as
 * TCP's retransmissions would deliver it once the link is back; a side that closed meanwhile has its
 * close delivered after its bytes.
 */
import { createServer, Server, Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string;
  /** Stop forwarding now, on every connection and on those accepted while frozen. */
  freeze(): void;
  /**
   * Forward until a chunk from the client contains `text`, then freeze before that chunk is passed on:
   * the server never sees it until thaw(). Resolves when it froze.
   */
  freezeOn(text: string): Promise<void>;
  thaw(): void;
  readonly frozen: boolean;
  close(): Promise<void>;
}

/** One direction of one connection: what it read while frozen waits here, with the close that followed. */
class Pipe {
  private held: Buffer[] = [];
  private ended = false;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly proxy: { frozen: boolean; inspect?: (chunk: Buffer) => boolean },
  ) {
    from.on('data', (chunk) => {
      if (!this.proxy.frozen && this.proxy.inspect?.(chunk)) {
        this.proxy.frozen = true;
      }
      if (this.proxy.frozen) {
        this.held.push(chunk);
      } else {
        to.write(chunk);
      }
    });
    from.on('end', () => {
      this.ended = true;
      this.flush();
    });
    from.on('close', () => {
      this.ended = true;
      this.flush();
    });
  }

  flush(): void {
    if (this.proxy.frozen) {
      return;
    }
    for (const chunk of this.held.splice(0)) {
      this.to.write(chunk);
    }
    if (this.ended && !this.to.destroyed) {
      this.to.end();
    }
  }
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const state: { frozen: boolean; inspect?: (chunk: Buffer) => boolean } = { frozen: false };
  const pipes: Pipe[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined); // a side that went away: its peer is ended by the pipe
      s.on('close', () => sockets.delete(s));
    }
    pipes.push(new Pipe(client, upstream, state), new Pipe(upstream, client, state));
    upstream.connect(target.port, target.host);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  let frozeOn: (() => void) | undefined;
  return {
    port,
    urlFor(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    freeze() {
      state.frozen = true;
    },
    freezeOn(text) {
      return new Promise((resolve) => {
        frozeOn = resolve;
        state.inspect = (chunk) => {
          if (!chunk.includes(text)) {
            return false;
          }
          state.inspect = undefined;
          setImmediate(() => frozeOn?.());
          return true;
        };
      });
    },
    thaw() {
      state.frozen = false;
      state.inspect = undefined;
      for (const pipe of pipes) {
        pipe.flush();
      }
    },
    get frozen() {
      return state.frozen;
    },
    async close() {
      for (const s of sockets) {
        s.destroy();
      }
      await new Promise((r) => server.close(r));
    },
  };
}
