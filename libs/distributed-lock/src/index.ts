export * from './distributed-lock.decorator';
export * from './distributed-lock.module';
export { DISTRIBUTED_LOCK_OPTIONS } from './distributed-lock.module-definition';
export type {
  DistributedLockModuleAsyncOptions,
  DistributedLockOptionsFactory,
} from './distributed-lock.module-definition';
export * from './distributed-lock.options';
export { DistributedLockService } from './distributed-lock.service';
export * from './errors';
export * from './lock-context';
export type { HeldLock, LockOwnership } from './held-lock';
export { LOCK_OWNED_LUA_FILE } from './lua/manifest';
export { hashTag, normalizeKeys } from './lock-keys';
