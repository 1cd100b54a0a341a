export * from './create-redis-client';
export * from './eviction-policy';
export * from './redis-client-options';
export * from './redis.constants';
export * from './redis.health';
export * from './redis.module';
export * from './redis.module-definition';
export * from './replica-ack.error';
