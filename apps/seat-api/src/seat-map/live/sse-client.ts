import type { ServerResponse } from 'node:http';

/** Bytes a client may leave unread beyond its first event before it is dropped (it then resumes). */
const MAX_UNREAD_BYTES = 4 * 1024 * 1024;

export const SSE_PING = ': ping\n\n';

/**
 * One open stream, written straight to the socket (the reply was hijacked from Fastify, so nothing
 * buffers or compresses it on the way). A client that stops reading is dropped once its unread bytes
 * pass a bound, instead of growing this process's memory: its EventSource reconnects and resumes.
 */
export class SseClient {
  private closed = false;
  private allowance = MAX_UNREAD_BYTES;

  constructor(
    private readonly res: ServerResponse,
    onClose: () => void,
  ) {
    res.once('close', () => {
      this.closed = true;
      onClose();
    });
  }

  /** The first event (a snapshot may be megabytes): the unread bound counts from after it. */
  first(chunk: string | Buffer): void {
    this.allowance = Buffer.byteLength(chunk) + MAX_UNREAD_BYTES;
    this.send(chunk);
  }

  send(chunk: string | Buffer): void {
    if (this.closed) {
      return;
    }
    if (this.res.writableLength > this.allowance) {
      this.end();
      return;
    }
    this.res.write(chunk);
  }

  end(): void {
    if (!this.closed) {
      this.res.end();
    }
  }
}
