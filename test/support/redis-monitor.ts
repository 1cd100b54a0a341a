/**
 * Redis's MONITOR feed on a connection of its own, read off the socket: every command Redis runs, as
 * (args, source), where source is the client's address or `lua` for a command a script ran.
 *
 * Not ioredis's monitor(): a feed line that comes in the same read as MONITOR's own +OK reaches ioredis
 * before it has switched the connection to monitoring, and it fails the connection ("Command queue state
 * error"): on a Redis that a running app keeps busy, that happens at random.
 */
import { connect, Socket } from 'node:net';

export interface RedisMonitor {
  stop(): void;
}

export async function monitorRedis(
  url: string,
  onCommand: (args: string[], source: string) => void,
): Promise<RedisMonitor> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port || 6379), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let buffered = '';
  let ready: () => void;
  const monitoring = new Promise<void>((r) => (ready = r));
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf('\r\n')) >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (line === '+OK') {
        ready();
      } else if (line.startsWith('+')) {
        // +<time> [<db> <source>] "<cmd>" "<arg>" ...
        const open = line.indexOf('[');
        const close = line.indexOf(']');
        const source = line.slice(open + 1, close).split(' ')[1] ?? '';
        const args = [...line.slice(close + 1).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) =>
          m[1].replace(/\\"/g, '"').replace(/\\\\/g, '\\'),
        );
        onCommand(args, source);
      }
    }
  });
  socket.write('MONITOR\r\n');
  await monitoring;
  return { stop: () => socket.destroy() };
}
