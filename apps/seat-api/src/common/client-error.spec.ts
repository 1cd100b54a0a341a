import { Logger } from '@nestjs/common';
import type { Socket } from 'node:net';
import { answerClientError } from './client-error';

// the handler's debug line is not what these check
beforeEach(() => jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined));

/** A socket that records what is written to it (the handler only writes once and destroys). */
function socket(state: { destroyed?: boolean; writable?: boolean } = {}) {
  const written: string[] = [];
  const s = {
    destroyed: state.destroyed ?? false,
    writable: state.writable ?? true,
    write: (data: string) => written.push(data),
    destroy: () => {
      s.destroyed = true;
    },
  };
  return { socket: s as unknown as Socket, written, state: s };
}

const parserError = (code: string, reason?: string) =>
  Object.assign(new Error(reason ? `Parse Error: ${reason}` : code), { code, reason });

function answer(written: string[]) {
  const [head, body] = written.join('').split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => l.split(': ')));
  return { statusLine, headers, body: JSON.parse(body) };
}

it.each([
  ['ERR_HTTP_REQUEST_TIMEOUT', undefined, 'HTTP/1.1 408 Request Timeout', 'REQUEST_TIMEOUT'],
  [
    'HPE_HEADER_OVERFLOW',
    'Header overflow',
    'HTTP/1.1 431 Request Header Fields Too Large',
    'HEADERS_TOO_LARGE',
  ],
  ['HPE_INVALID_CHUNK_SIZE', 'Invalid character in chunk size', 'HTTP/1.1 400 Bad Request', 'BAD_REQUEST'],
  ['HPE_INVALID_EOF_STATE', 'Invalid EOF state', 'HTTP/1.1 400 Bad Request', 'BAD_REQUEST'],
])('answers %s in the envelope, then closes the connection', (code, reason, statusLine, envelopeCode) => {
  const { socket: s, written, state } = socket();
  answerClientError(parserError(code, reason), s);
  const a = answer(written);
  expect(a.statusLine).toBe(statusLine);
  expect(a.body).toEqual({
    statusCode: Number(statusLine.split(' ')[1]),
    code: envelopeCode,
    message: expect.any(String),
    requestId: a.headers['x-request-id'],
  });
  expect(a.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(a.body))));
  expect(a.headers.connection).toBe('close');
  expect(state.destroyed).toBe(true);
});

it('names the parser reason, which is one of its fixed texts', () => {
  const { socket: s, written } = socket();
  answerClientError(parserError('HPE_INVALID_CHUNK_SIZE', 'Invalid character in chunk size'), s);
  expect(answer(written).body.message).toBe('The request is not valid HTTP: Invalid character in chunk size');
});

it('writes nothing to a connection that was reset or can no longer be written', () => {
  for (const [error, state] of [
    [parserError('ECONNRESET'), {}],
    [parserError('HPE_INVALID_METHOD', 'Invalid method encountered'), { destroyed: true }],
    [parserError('HPE_INVALID_METHOD', 'Invalid method encountered'), { writable: false }],
  ] as const) {
    const { socket: s, written } = socket(state);
    answerClientError(error, s);
    expect(written).toEqual([]);
  }
});
