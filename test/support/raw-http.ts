/**
 * An HTTP exchange over a bare TCP socket, for requests no HTTP client will send (broken chunked
 * encoding, Content-Length with Transfer-Encoding, raw non-ASCII bytes in the path, a body cut short):
 * the bytes go out as given and the first answer is read back, whatever the server does with the
 * connection afterwards.
 */
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  /** header names in lower case */
  headers: Record<string, string>;
  /** the body parsed as JSON, else its text */
  body: any;
}

/**
 * Sends `request` (a string is sent as latin1, byte for byte) to `base` (`http://127.0.0.1:<port>`),
 * half-closes the socket when `end` (the server then sees the request end there), and resolves with the
 * first answer once its body is complete or the server closed. Rejects when nothing answers in `timeoutMs`.
 */
export function rawRequest(
  base: string,
  request: string | Buffer,
  { end = false, timeoutMs = 10_000 }: { end?: boolean; timeoutMs?: number } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) {
        return;
      }
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) {
        reject(error);
        return;
      }
      try {
        resolve(parse(received));
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    };
    const timer = setTimeout(
      () => finish(new Error(`no complete answer in ${timeoutMs} ms: ${received.toString('latin1')}`)),
      timeoutMs,
    );
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (complete(received)) {
        finish();
      }
    });
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (e) => (received.length > 0 ? finish() : finish(e)));
    socket.write(typeof request === 'string' ? Buffer.from(request, 'latin1') : request);
    if (end) {
      socket.end();
    }
  });
}

/**
 * True once the head and a Content-Length's worth of body have arrived; at the head for an answer without
 * a body (204, 304) or one that never ends by itself (an event stream).
 */
function complete(bytes: Buffer): boolean {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd < 0) {
    return false;
  }
  const head = bytes.subarray(0, headEnd).toString('latin1');
  if (/^HTTP\/1\.1 (204|304) /.test(head) || /\r\ncontent-type:\s*text\/event-stream/i.test(head)) {
    return true;
  }
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  return length !== null && bytes.length >= headEnd + 4 + Number(length[1]);
}

function parse(bytes: Buffer): RawAnswer {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd < 0) {
    throw new Error(`no HTTP answer: ${JSON.stringify(bytes.toString('latin1'))}`);
  }
  const [statusLine, ...lines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const text = bytes.subarray(headEnd + 4).toString('utf8');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}
