import { Global, Module } from '@nestjs/common';
import { ConfigurableDistributedLockModule } from './distributed-lock.module-definition';
import { DistributedLockService } from './distributed-lock.service';

/**
 * `DistributedLockModule.forRoot({ redis })` or `.forRootAsync({ inject, useFactory })` (or useClass /
 * useExisting). Global: a class anywhere using @DistributedLock gets the service without importing it.
 */
@Global()
@Module({
  providers: [DistributedLockService],
  exports: [DistributedLockService],
})
export class DistributedLockModule extends ConfigurableDistributedLockModule {}
