import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '@app/config';
import { DomainError } from '../common/errors/domain-error';
import { openEventStream } from '../common/event-stream';
import { ErrorCode } from '../common/errors/error-code';
import { QueueStatus, QueueStatusCache } from './queue-status.cache';

/**
 * GET /v1/events/{eventId}/queue/stream: the queue's status as `event: status`, first at once, then each
 * time it changes here (QueueStatusCache). A status is small and only the latest one matters: a client
 * whose socket has not drained is sent only the newest status once it has, never a backlog, so a client
 * that stops reading holds at most one status in this process.
 */
@Injectable()
export class QueueStatusStreams implements OnModuleDestroy {
  private readonly streams = new Set<ServerResponse>();

  constructor(
    private readonly statuses: QueueStatusCache,
    private readonly config: AppConfig,
  ) {}

  open(eventId: string, first: QueueStatus, req: FastifyRequest, reply: FastifyReply): void {
    if (this.streams.size >= this.config.queue.maxStreams) {
      throw new DomainError(
        ErrorCode.TOO_MANY_STREAMS,
        'Too many live streams on this instance; poll the status instead',
      );
    }
    const res = openEventStream(req, reply);
    this.streams.add(res);
    let latest: QueueStatus | undefined;
    const send = (s: QueueStatus) => {
      if (res.writableNeedDrain) {
        latest = s; // sent when the socket drains, instead of piling up
        return;
      }
      latest = undefined;
      res.write(`event: status\ndata: ${s.json}\n\n`);
    };
    const stop = this.statuses.listen(eventId, send);
    const ping = setInterval(() => {
      if (!res.writableNeedDrain) {
        res.write(': ping\n\n');
      }
    }, this.config.queue.heartbeatMs);
    ping.unref();
    res.on('drain', () => latest && send(latest));
    res.once('close', () => {
      stop();
      clearInterval(ping);
      this.streams.delete(res);
    });
    send(first);
  }

  onModuleDestroy(): void {
    // open streams would keep the server from closing: end them (clients reconnect elsewhere)
    this.streams.forEach((res) => res.end());
  }
}
