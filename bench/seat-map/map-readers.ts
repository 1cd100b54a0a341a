/**
 * The seat-map readers of bench:seat-map, in a process of their own so that receiving the map does not
 * slow the load generator's event loop (which would show up as hold latency). Reads MAP_URL with READERS
 * keep-alive connections in a loop (at most one request per PACE_MS each when set; with If-None-Match when
 * REVALIDATE=1; with ACCEPT_ENCODING as the
 * Accept-Encoding header when set, as a browser sends `gzip, deflate, br`) until SIGTERM, then prints
 * {"reads", "bytes" (as received, compressed or not), "ms" (how long it read), "encodings" (200s per
 * Content-Encoding), "statuses"} on stdout. Bodies are not decoded: a remote browser would, on its own
 * CPU; here that CPU is the service's machine's (the bench checks once that the bodies decode).
 */
import { Agent, request } from 'node:http';

const url = process.env.MAP_URL!;
const readers = Number(process.env.READERS ?? 20);
const revalidate = process.env.REVALIDATE === '1';
const acceptEncoding = process.env.ACCEPT_ENCODING;
/** Each reader's requests start at least this far apart (0: back to back), e.g. a page polling at a limit. */
const paceMs = Number(process.env.PACE_MS ?? 0);
const agent = new Agent({ keepAlive: true, maxSockets: readers });
const started = Date.now();
let stop = false;
let reads = 0;
let bytes = 0;
const encodings: Record<string, number> = {};
const statuses: Record<number, number> = {};

function get(headers: Record<string, string>): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers }, (res) => {
      const status = res.statusCode ?? 0;
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status === 200) {
        const encoding = res.headers['content-encoding'] ?? 'identity';
        encodings[encoding] = (encodings[encoding] ?? 0) + 1;
      }
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve(res.headers.etag));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const loops = Array.from({ length: readers }, async () => {
  let tag: string | undefined;
  while (!stop) {
    const due = Date.now() + paceMs;
    const headers: Record<string, string> = acceptEncoding ? { 'accept-encoding': acceptEncoding } : {};
    if (revalidate && tag) {
      headers['if-none-match'] = tag;
    }
    tag = (await get(headers)) ?? tag;
    reads++;
    const wait = due - Date.now();
    if (wait > 0 && !stop) {
      await new Promise((r) => setTimeout(r, wait));
    }
  }
});
process.on('SIGTERM', () => {
  stop = true;
  void Promise.all(loops).then(() => {
    process.stdout.write(JSON.stringify({ reads, bytes, ms: Date.now() - started, encodings, statuses }));
    agent.destroy();
  });
});
