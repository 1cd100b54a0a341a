export * from './http-metrics';
export * from './logging';
export * from './metrics';
export * from './metrics.controller';
export * from './observability.module';
