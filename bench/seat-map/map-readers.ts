/**
 * The seat-map readers of bench:seat-map, in a process of their own so that receiving the map does not
 * slow the load generator's event loop (which would show up as hold latency). Reads MAP_URL with READERS
 * keep-alive connections in a loop (with If-None-Match when REVALIDATE=1) until SIGTERM, then prints
 * {"reads": n, "bytes": n, "ms": how long it read} on stdout.
 */
import { Agent, request } from 'node:http';

const url = process.env.MAP_URL!;
const readers = Number(process.env.READERS ?? 20);
const revalidate = process.env.REVALIDATE === '1';
const agent = new Agent({ keepAlive: true, maxSockets: readers });
const started = Date.now();
let stop = false;
let reads = 0;
let bytes = 0;

function get(headers: Record<string, string>): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers }, (res) => {
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
    tag = (await get(revalidate && tag ? { 'if-none-match': tag } : {})) ?? tag;
    reads++;
  }
});
process.on('SIGTERM', () => {
  stop = true;
  void Promise.all(loops).then(() => {
    process.stdout.write(JSON.stringify({ reads, bytes, ms: Date.now() - started }));
    agent.destroy();
  });
});
