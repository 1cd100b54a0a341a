/** DI token of the shared ioredis client (commands, scripts). */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');
