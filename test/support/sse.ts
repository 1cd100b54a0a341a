/**
 * A Server-Sent Events client for tests: reads a real HTTP stream (fetch) and parses it as a browser's
 * EventSource would (event, id, data lines; comment lines kept apart, so heartbeats can be seen).
 */
import { eventually } from './eventually';

export interface SseEvent {
  event: string;
  id?: string;
  data: any;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The error envelope when the stream was refused (status is not 200). */
  body?: any;
  events: SseEvent[];
  comments: string[];
  /** True once the server ended the stream. */
  ended: boolean;
  /** Waits until an event matches, and returns it; fails naming `what` after `timeoutMs`. */
  next(match: (e: SseEvent) => boolean, what: string, timeoutMs?: number): Promise<SseEvent>;
  close(): Promise<void>;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  let reading: Promise<void> = Promise.resolve();
  const res = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  const stream: SseStream = {
    status: res.status,
    headers: res.headers,
    events: [],
    comments: [],
    ended: false,
    async next(match, what, timeoutMs = 10_000) {
      if (stream.status !== 200) {
        throw new Error(
          `waiting for ${what}: the stream was refused, ${stream.status} ${JSON.stringify(stream.body)}`,
        );
      }
      let found: SseEvent | undefined;
      let seen = 0;
      await eventually(
        () => {
          for (; seen < stream.events.length; seen++) {
            if (match(stream.events[seen])) {
              found = stream.events[seen];
              return true;
            }
          }
          return false;
        },
        timeoutMs,
        what,
      );
      return found!;
    },
    async close() {
      abort.abort();
      await reading.catch(() => undefined);
    },
  };
  if (res.status !== 200 || !res.body) {
    const text = await res.text();
    stream.body = text ? JSON.parse(text) : undefined;
    return stream;
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  reading = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        stream.ended = true;
        return;
      }
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        parseBlock(buffer.slice(0, end), stream);
        buffer = buffer.slice(end + 2);
      }
    }
  })();
  reading.catch(() => undefined);
  return stream;
}

function parseBlock(block: string, into: SseStream): void {
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      into.comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') {
      event = value;
    } else if (field === 'id') {
      id = value;
    } else if (field === 'data') {
      data.push(value);
    }
  }
  if (data.length > 0) {
    into.events.push({ event, id, data: JSON.parse(data.join('\n')) });
  }
}
