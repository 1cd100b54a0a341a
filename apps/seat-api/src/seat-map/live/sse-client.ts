import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { droppedStreams } from '../seat-map.metrics';
import type { SnapshotFrame } from '../snapshot/snapshot-frame';
import type { Stalled, StalledStreams } from './stalled-streams';

/** Bytes of a snapshot written at a time: what a client that stops reading holds in this process. */
export const PIECE_BYTES = 32 * 1024;
/**
 * Seats a client that cannot take its changes yet may be owed; past it, it is owed a new snapshot
 * instead (a flag, not a list), so what a lagging client costs does not grow with the map.
 */
export const MAX_OWED_SEATS = 2048;
/** What one stream may hold here at most: a piece in its socket, its owed seats, the client itself. */
export const STREAM_BASE_BYTES = 64 * 1024;

export const SSE_PING = ': ping\n\n';

/**
 * One open stream, written straight to the socket (the reply was hijacked from Fastify, so nothing
 * buffers or compresses it on the way), and only as fast as the client takes it:
 * - a snapshot goes out a piece at a time, the next piece when the socket has drained;
 * - while the socket has not drained, nothing more is written: the seats changed meanwhile are noted
 *   (owed), and sent with their status at the time once it has (the feed does, at its next batch);
 * - while the socket has not drained, the stream is watched (stalled-streams.ts): a client that has
 *   taken nothing for the drain timeout is dropped (its EventSource reconnects and resumes from its last
 *   event), so one that never reads holds a piece of memory for that long; one that reads slowly keeps
 *   its stream.
 */
export class SseClient implements Stalled {
  private closed = false;
  private frame?: SnapshotFrame;
  private frameAt = 0;
  /** Seats changed since what this client was sent, while it could not take them. */
  private readonly owed = new Set<number>();
  private owesSnapshot = false;
  private owedAreas = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly stalls: StalledStreams,
    onClose: () => void,
  ) {
    res.once('close', () => {
      this.closed = true;
      this.frame = undefined;
      stalls.unwatch(this);
      onClose();
    });
    res.on('drain', () => {
      stalls.unwatch(this);
      this.pump();
    });
  }

  get socket(): Socket | null {
    return this.res.socket;
  }

  drop(): void {
    droppedStreams.inc({ reason: 'not_draining' });
    this.res.destroy();
  }

  /** True when the client has taken everything written to it: the next event can go out now. */
  get ready(): boolean {
    return !this.closed && this.frame === undefined && !this.res.writableNeedDrain;
  }

  /** What this client is owed beyond the feed's next batch: nothing, some seats, or a whole snapshot. */
  get owes(): 'nothing' | 'seats' | 'snapshot' {
    return this.owesSnapshot ? 'snapshot' : this.owed.size > 0 ? 'seats' : 'nothing';
  }

  /** The seats owed, cleared: the caller sends them now. */
  takeOwed(): Set<number> {
    const seats = new Set(this.owed);
    this.owed.clear();
    return seats;
  }

  /** Notes seats changed while the client could not take them. */
  owe(positions: Iterable<number>): void {
    if (this.owesSnapshot) {
      return;
    }
    for (const p of positions) {
      this.owed.add(p);
    }
    if (this.owed.size > MAX_OWED_SEATS) {
      this.owesSnapshot = true;
      this.owed.clear();
    }
  }

  /** An area changed while the client could not take it: it gets every area once it can. */
  oweAreas(): void {
    this.owedAreas = true;
  }

  /** Whether the client is owed the areas, cleared: the caller sends them now. */
  takeOwedAreas(): boolean {
    const owed = this.owedAreas;
    this.owedAreas = false;
    return owed;
  }

  /** The client needs a new snapshot (its view may be wrong): sent when it is ready. */
  oweSnapshot(): void {
    this.owesSnapshot = true;
    this.owed.clear();
  }

  /** Starts sending a snapshot; whatever was owed is in it. */
  sendSnapshot(frame: SnapshotFrame): void {
    this.owesSnapshot = false;
    this.owed.clear();
    this.frame = frame;
    this.frameAt = 0;
    this.pump();
  }

  /** Writes a (small) event or comment; the feed calls it only when `ready`. */
  send(chunk: string): void {
    if (!this.closed && !this.res.write(chunk)) {
      this.waitForDrain();
    }
  }

  end(): void {
    if (!this.closed) {
      this.res.end();
    }
  }

  private pump(): void {
    while (this.frame && !this.closed && !this.res.writableNeedDrain) {
      const piece = this.frame.piece(this.frameAt, PIECE_BYTES);
      this.frameAt += piece.length;
      if (this.frameAt >= this.frame.length) {
        this.frame = undefined;
      }
      if (!this.res.write(piece)) {
        this.waitForDrain();
      }
    }
  }

  private waitForDrain(): void {
    if (!this.closed) {
      this.stalls.watch(this);
    }
  }
}
