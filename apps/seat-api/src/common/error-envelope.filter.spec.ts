import { ArgumentsHost, BadRequestException, Logger, ServiceUnavailableException } from '@nestjs/common';
import { LockBackendError, LockNotAcquiredError } from '@app/distributed-lock';
import { ApiError } from './api-error';
import { ErrorEnvelopeFilter } from './error-envelope.filter';

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

  it('renders an ApiError with its code, details and headers', () => {
    const r = render(
      new ApiError(409, 'SEATS_UNAVAILABLE', 'taken', [{ seatId: 'A-1', reason: 'HELD' }], { 'x-a': '1' }),
    );
    expect(r.status).toBe(409);
    expect(r.headers).toEqual({ 'x-a': '1', 'x-request-id': 'req-1' });
    expect(r.body).toEqual({
      statusCode: 409,
      code: 'SEATS_UNAVAILABLE',
      message: 'taken',
      errors: [{ seatId: 'A-1', reason: 'HELD' }],
      requestId: 'req-1',
    });
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
    expect(errors).toHaveBeenCalledWith(expect.stringContaining('[req-1]'));
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
