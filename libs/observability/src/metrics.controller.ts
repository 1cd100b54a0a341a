import { Controller, Get, Header, SetMetadata } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { register } from 'prom-client';

/** Prometheus text exposition of the process-wide registry (locks, holds, sweeper, outbox, HTTP). */
@ApiExcludeController()
// 'auth:public' is the metadata key the apps' auth guards read: scrapes carry no user token.
@SetMetadata('auth:public', true)
@Controller('metrics')
export class MetricsController {
  @Get()
  @Header('Content-Type', register.contentType)
  async scrape(): Promise<string> {
    return register.metrics();
  }
}
