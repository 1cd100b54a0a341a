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
      // the event-loop delay histogram samples every 100 ms, not prom-client's 10 ms: each sample wakes
      // the loop, and 100 wakeups a second are most of an idle consumer's CPU (bench/README.md, idle
      // cost); a stall of 100 ms or more, what the lag metrics are read for, still delays a sample
      collectDefaultMetrics({ eventLoopMonitoringPrecision: 100 });
      defaultsCollected = true;
    }
  }
}
