import { Injectable, Logger } from '@nestjs/common';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { compressionSeconds, compressions } from '../seat-map.metrics';
import { EventSnapshot } from '../snapshot/event-snapshot';
import { MapEncoding } from './accept-encoding';

/** Smaller bodies go as they are: a few hundred bytes saved are not worth a trip to the thread pool. */
export const MIN_COMPRESS_BYTES = 1024;

/**
 * Levels chosen on the whole map of a 100,000-seat event: gzip level 1 comes within a few percent of
 * level 6's size in a fraction of its time; brotli quality 2 is much smaller than quality 1 and much
 * faster than quality 4 and up. A version of a busy event lives for milliseconds, so a compression must
 * be cheap; every reader of the version gets the result, so it must be small too.
 */
const GZIP_LEVEL = 1;
const BROTLI_QUALITY = 2;

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** zlib's asynchronous API: the work runs in the libuv thread pool, never on the event loop. */
function compress(body: Buffer, encoding: MapEncoding): Promise<Buffer> {
  return encoding === 'gzip'
    ? gzipAsync(body, { level: GZIP_LEVEL })
    : brotliAsync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      });
}

/** What one event is compressing: which representation (snapshot object and generation) and coding. */
interface InFlight {
  snap: EventSnapshot;
  generation: number;
  encoding: MapEncoding;
  done: Promise<Buffer | undefined>;
}

const logger = new Logger('SeatMap');

/**
 * How many other compressions of the event a read waits out before it sends identity: on a map that
 * changes faster than it compresses, the reads of several versions queue up; past this, identity.
 */
const MAX_WAITS = 3;

/**
 * The whole map in a content coding, made once per representation off the event loop and kept with the
 * snapshot beside the identity body (so in its byte budget, and dropped with it on the next change).
 *
 * At most one compression runs per event. A read finds one of:
 * - the body for its representation, kept: it is sent;
 * - none, and nothing running for the event: it starts one and waits for it. Waiting (tens of ms, in
 *   the thread pool) beats sending megabytes of identity body: that costs the service more event-loop
 *   time than the compression costs a pool thread, and the client more time to receive;
 * - one running for the same representation and coding: it waits for that one too (same reasoning);
 * - one running for another version (or coding): it waits for that one to end, then starts its own (or
 *   joins the one another such read started). So compressions of an event run one after the other,
 *   never one per read, and a read waits out at most MAX_WAITS of them (then sends identity). Sending the identity
 *   body instead would, on a 100,000-seat map changing 10 times a second, send most reads 15 MB each
 *   (they come during another version's compression), which stalls the event loop for everyone
 *   (bench:seat-map's changing-map case); a second wait is cheaper than that.
 * A result whose version is gone by the time it is ready is still sent to the reads that waited for it
 * (it is their representation: the same as an identity body rendered when they came), but not kept.
 */
@Injectable()
export class SeatMapCompression {
  private readonly inFlight = new Map<string, InFlight>();

  /**
   * `identity` in `encoding`, for the snapshot's current representation; undefined to send identity.
   * `kept` runs when a body joins the snapshot (its size changed: the caller re-accounts it).
   */
  encoded(
    snap: EventSnapshot,
    identity: Buffer,
    encoding: MapEncoding,
    kept: () => void,
  ): Promise<Buffer | undefined> | Buffer | undefined {
    if (identity.length < MIN_COMPRESS_BYTES) {
      return undefined;
    }
    const ready = snap.renderedBody(`map.${encoding}`);
    if (ready) {
      return ready;
    }
    return this.encode(snap, identity, encoding, kept, snap.renderGeneration, MAX_WAITS);
  }

  /** `identity` (the body of `generation`) compressed: joins, waits for, or starts the event's compression. */
  private encode(
    snap: EventSnapshot,
    identity: Buffer,
    encoding: MapEncoding,
    kept: () => void,
    generation: number,
    waitsLeft: number,
  ): Promise<Buffer | undefined> | undefined {
    const key = `map.${encoding}`;
    const running = this.inFlight.get(snap.eventId);
    if (running) {
      const mine =
        running.snap === snap && running.generation === generation && running.encoding === encoding;
      if (mine) {
        return running.done;
      }
      // another representation's: wait for it, then ours (made meanwhile by another read, or now)
      return waitsLeft > 0
        ? running.done.then(
            () =>
              (generation === snap.renderGeneration ? snap.renderedBody(key) : undefined) ??
              this.encode(snap, identity, encoding, kept, generation, waitsLeft - 1),
          )
        : undefined;
    }
    const started = process.hrtime.bigint();
    const done = compress(identity, encoding)
      .then(
        (body) => {
          const outcome = snap.keepRendered(key, body, generation) ? 'kept' : 'stale';
          compressions.inc({ encoding, outcome });
          if (outcome === 'kept') {
            kept();
          }
          compressionSeconds.observe({ encoding }, Number(process.hrtime.bigint() - started) / 1e9);
          return body;
        },
        (error: unknown) => {
          compressions.inc({ encoding, outcome: 'failed' });
          logger.error({ msg: 'seat map compression failed', eventId: snap.eventId, encoding, error });
          return undefined; // the reads that waited send identity
        },
      )
      .finally(() => this.inFlight.delete(snap.eventId));
    this.inFlight.set(snap.eventId, { snap, generation, encoding, done });
    return done;
  }
}
