import { Global, Module } from '@nestjs/common';
import { collectDefaultMetrics, register } from 'prom-client';
import { MetricsController } from './metrics.controller';

let defaultsCollected = false;

@Global()
@Module({
  controllers: [MetricsController],
})
export class ObservabilityModule {
  constructor() {
    if (!defaultsCollected && !register.getSingleMetric('process_cpu_seconds_total')) {
      collectDefaultMetrics();
      defaultsCollected = true;
    }
  }
}
