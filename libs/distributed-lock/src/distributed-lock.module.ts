import { DynamicModule, Global, Module } from '@nestjs/common';
import { DISTRIBUTED_LOCK_OPTIONS, DistributedLockModuleOptions } from './distributed-lock.options';
import { DistributedLockService } from './distributed-lock.service';

@Global()
@Module({})
export class DistributedLockModule {
  static forRoot(options: DistributedLockModuleOptions): DynamicModule {
    return {
      module: DistributedLockModule,
      providers: [{ provide: DISTRIBUTED_LOCK_OPTIONS, useValue: options }, DistributedLockService],
      exports: [DistributedLockService],
    };
  }

  static forRootAsync(options: {
    imports?: DynamicModule['imports'];
    inject?: unknown[];
    useFactory: (...args: never[]) => DistributedLockModuleOptions | Promise<DistributedLockModuleOptions>;
  }): DynamicModule {
    return {
      module: DistributedLockModule,
      imports: options.imports ?? [],
      providers: [
        {
          provide: DISTRIBUTED_LOCK_OPTIONS,
          inject: (options.inject ?? []) as never[],
          useFactory: options.useFactory,
        },
        DistributedLockService,
      ],
      exports: [DistributedLockService],
    };
  }
}
