/**
 * loggingParams and installRequestScope on the seat API's adapter (Fastify, the request id from
 * requestIdOf): every line logged while a request is being handled carries its requestId, whoever logs it
 * and after any await, without the code passing it, for a request with a body too. Lines outside a
 * request carry none.
 */
import { Body, Controller, Get, Injectable, Post, Logger as NestLogger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger, LoggerModule } from 'nestjs-pino';
import { Writable } from 'node:stream';
import { installRequestScope, loggingParams, requestIdOf } from './logging';

const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    }
    done();
  },
});

/** Deeper code with its own Nest Logger, as the services have: it is not handed any request id. */
@Injectable()
class Deep {
  private readonly logger = new NestLogger('Deep');

  async work(label: string): Promise<void> {
    await new Promise((r) => setTimeout(r, 5));
    this.logger.warn(`deep ${label}`);
  }
}

@Controller()
class Probe {
  constructor(private readonly deep: Deep) {}

  @Get('probe')
  async probe(): Promise<string> {
    await this.deep.work('in a request');
    return 'ok';
  }

  @Post('probe')
  async withBody(@Body() body: { label: string }): Promise<string> {
    await this.deep.work(body.label);
    return 'ok';
  }
}

const params = loggingParams({ level: 'log', format: 'json', app: 'spec' });

@Module({
  imports: [LoggerModule.forRoot({ ...params, pinoHttp: [params.pinoHttp as object, sink] })],
  controllers: [Probe],
  providers: [Deep],
})
class ProbeModule {}

let app: NestFastifyApplication;
beforeAll(async () => {
  const adapter = new FastifyAdapter({ requestIdHeader: false, genReqId: requestIdOf, logger: false });
  installRequestScope(adapter.getInstance());
  app = await NestFactory.create<NestFastifyApplication>(ProbeModule, adapter, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
});
afterAll(() => app?.close());

it('puts the request id on every line logged while a request runs, and on none outside one', async () => {
  const answers = await Promise.all([
    app.inject({ method: 'GET', url: '/probe', headers: { 'x-request-id': 'req-one' } }),
    app.inject({ method: 'GET', url: '/probe', headers: { 'x-request-id': 'req-two' } }),
    app.inject({
      method: 'POST',
      url: '/probe',
      headers: { 'x-request-id': 'req-three' },
      payload: { label: 'in a request with a body' },
    }),
  ]);
  expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 201]);
  await app.get(Deep).work('outside');
  const deep = lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('deep'));
  expect(deep.map((l) => [l.msg, l.requestId]).sort()).toEqual([
    ['deep in a request with a body', 'req-three'],
    ['deep in a request', 'req-one'],
    ['deep in a request', 'req-two'],
    ['deep outside', undefined],
  ]);
});
