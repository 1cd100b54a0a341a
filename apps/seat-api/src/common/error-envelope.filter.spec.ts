import {
  ArgumentsHost,
  BadRequestException,
  HttpException,
  Logger,
  ServiceUnavailableException,
} from '@nestjs/common';
import { ReplyError } from 'ioredis';
import { LockBackendError, LockNotAcquiredError } from '@app/distributed-lock';
import { ReplicaAckTimeoutError } from '@app/redis';
import { ErrorEnvelopeFilter } from './error-envelope.filter';
import { DomainError } from './errors/domain-error';
import { ErrorCode } from './errors/error-code';
import { HTTP_ANSWERS } from './errors/error-http';

/** What the filter sent: a stand-in for Fastify's reply, recording status, headers and body. */
function render(exception: unknown) {
  const sent: { status?: number; headers: Record<string, string>; body?: unknown } = { headers: {} };
  const reply = {
    status(code: number) {
      sent.status = code;
      return reply;
    },
    headers(h: Record<string, string>) {
      Object.assign(sent.headers, h);
      return reply;
    },
    send(body: unknown) {
      sent.body = body;
      return reply;
    },
  };
  const req = { id: 'req-1', method: 'POST', url: '/v1/x' };
  const host = {
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => req, getResponse: () => reply }),
  } as unknown as ArgumentsHost;
  new ErrorEnvelopeFilter().catch(exception, host);
  return sent;
}

describe('ErrorEnvelopeFilter', () => {
  let errors: jest.SpyInstance;
  beforeEach(() => {
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('renders a DomainError with its code and details, the status from the table', () => {
    const r = render(
      new DomainError(ErrorCode.SEATS_UNAVAILABLE, 'taken', { details: [{ seatId: 'A-1', reason: 'HELD' }] }),
    );
    expect(r.status).toBe(409);
    expect(r.headers).toEqual({ 'x-request-id': 'req-1' });
    expect(r.body).toEqual({
      statusCode: 409,
      code: 'SEATS_UNAVAILABLE',
      message: 'taken',
      errors: [{ seatId: 'A-1', reason: 'HELD' }],
      requestId: 'req-1',
    });
  });

  it.each([
    [ErrorCode.BUSY, 503, '1'],
    [ErrorCode.BOOKING_UNAVAILABLE, 503, '2'],
    [ErrorCode.TOO_MANY_STREAMS, 503, '5'],
    [ErrorCode.IDEMPOTENCY_IN_PROGRESS, 409, '1'],
    // the generic 429 and 503 codes too: no 429 or 503 refusal goes out without Retry-After
    [ErrorCode.TOO_MANY_REQUESTS, 429, '1'],
    [ErrorCode.SERVICE_UNAVAILABLE, 503, '2'],
  ])('answers %s with %i and its default Retry-After %s', (code, status, header) => {
    const r = render(new DomainError(code, 'wait'));
    expect(r.status).toBe(status);
    expect(r.headers['retry-after']).toBe(header);
    expect(r.body).toEqual({ statusCode: status, code, message: 'wait', requestId: 'req-1' });
  });

  it("prefers the error's own retry hint to its code's default", () => {
    const r = render(new DomainError(ErrorCode.RATE_LIMITED, 'slow down', { retryAfterSeconds: 37 }));
    expect(r.status).toBe(429);
    expect(r.headers['retry-after']).toBe('37');
  });

  it('gives every code a status, and Retry-After to every 429 and 503 code (the generic ones included)', () => {
    for (const code of Object.values(ErrorCode)) {
      const { status, retryAfterSeconds } = HTTP_ANSWERS[code];
      expect([code, status >= 400 && status < 600]).toEqual([code, true]);
      if (status === 429 || status === 503) {
        expect([code, retryAfterSeconds]).toEqual([code, expect.any(Number)]);
      }
    }
  });

  it.each([
    [429, 'TOO_MANY_REQUESTS', '1'],
    [503, 'SERVICE_UNAVAILABLE', '2'],
  ])(
    'gives a framework HttpException %i its code and the code’s default Retry-After',
    (status, code, retry) => {
      const r = render(new HttpException('framework says no', status));
      expect(r.status).toBe(status);
      expect(r.body).toMatchObject({ code, message: 'framework says no' });
      expect(r.headers['retry-after']).toBe(retry);
    },
  );

  it('gives a framework 400 no Retry-After', () => {
    expect(render(new BadRequestException('bad')).headers['retry-after']).toBeUndefined();
  });

  it('maps a write not acknowledged by enough replicas to 503 REPLICAS_UNAVAILABLE with Retry-After', () => {
    const r = render(new ReplicaAckTimeoutError('createHold', 1, 0, 100));
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ code: 'REPLICAS_UNAVAILABLE', requestId: 'req-1' });
    expect(r.headers['retry-after']).toBe('1');
  });

  it.each([
    [1, '1'],
    [999, '1'],
    [2500, '3'],
    [600_000, '5'],
  ])('maps a busy lock (holder has %i ms left) to 503 BUSY, Retry-After %s s', (ms, header) => {
    const r = render(new LockNotAcquiredError(['seat:{e}:A-1'], 300, ms));
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ code: 'BUSY' });
    expect(r.headers['retry-after']).toBe(header);
    expect(JSON.stringify(r.body)).not.toContain('seat:{e}'); // lock keys are internal
  });

  it.each([
    ['the lock backend', new LockBackendError('could not reach Redis')],
    [
      'ioredis without its offline queue',
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
    ],
    ['ioredis out of retries', new Error('Reached the max retries per request limit (which is 1).')],
    ['an ioredis timeout', new Error('Command timed out')],
    // a Cluster mid-failover: the command was not run (redirected, refused, or the slot has no master yet);
    // ioredis follows a redirection of a pipelined command only when the whole batch got the same answer
    ['a MOVED the client did not follow', new ReplyError('MOVED 1493 127.0.0.1:7301')],
    ['an ASK the client did not follow', new ReplyError('ASK 1493 127.0.0.1:7306')],
    ['a slot being migrated', new ReplyError('TRYAGAIN Multiple keys request during rehashing of slot')],
    ['a Cluster without a master for a slot', new ReplyError('CLUSTERDOWN The cluster is down')],
    ['a master without replicas to write to', new ReplyError('MASTERDOWN Link with MASTER is down')],
    ['a node loading its data', new ReplyError('LOADING Redis is loading the dataset in memory')],
    [
      'a write that reached a replica',
      new ReplyError("READONLY You can't write against a read only replica."),
    ],
  ])('maps %s failing to 503 DEPENDENCY_UNAVAILABLE with Retry-After', (_name, e) => {
    const r = render(e);
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', requestId: 'req-1' });
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('turns anything unknown into a 500 that leaks nothing, and logs it with the request id', () => {
    const r = render(new TypeError('password=hunter2 at pg.connect'));
    expect(r.status).toBe(500);
    expect(r.body).toEqual({
      statusCode: 500,
      code: 'INTERNAL',
      message: 'Internal error',
      requestId: 'req-1',
    });
    expect(errors).toHaveBeenCalledWith(
      expect.objectContaining({ requestId: 'req-1', error: expect.stringContaining('password=hunter2') }),
    );
  });

  it.each([
    [{ statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE', message: 'too large' }, 413, 'PAYLOAD_TOO_LARGE'],
    [
      { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', message: 'x' },
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    [{ statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY', message: 'bad' }, 400, 'MALFORMED_JSON'],
    [new BadRequestException('Unexpected token } in JSON at position 3'), 400, 'MALFORMED_JSON'],
  ])('gives Fastify and Nest errors the envelope: %j', (e, status, code) => {
    const r = render(e);
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ statusCode: status, code, requestId: 'req-1' });
  });

  it('passes a Terminus health report through untouched (monitors read its shape)', () => {
    const report = { status: 'error', info: {}, error: { redis: { status: 'down' } }, details: {} };
    const r = render(new ServiceUnavailableException(report));
    expect(r.status).toBe(503);
    expect(r.body).toEqual(report);
  });
});
