import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { dataSourceOptions } from './data-source-options';
import {
  ConfigurableDatabaseOptionsModule,
  DATABASE_ASYNC_OPTIONS_TYPE,
  DATABASE_MODULE_OPTIONS,
  DATABASE_OPTIONS_TYPE,
  DatabaseModuleOptions,
} from './database.module-definition';
import { runMigrations } from './run-migrations';

/**
 * Holds the resolved options and exports them. TypeORM's own module is a separate (global) module that
 * cannot see DatabaseModule's providers, so it imports this one to inject the options.
 */
@Module({ exports: [DATABASE_MODULE_OPTIONS] })
class DatabaseOptionsModule extends ConfigurableDatabaseOptionsModule {}

/**
 * TypeORM on PostgreSQL: `DatabaseModule.forRoot(options)` or `.forRootAsync({ inject, useFactory })`
 * (or useClass / useExisting). Boot applies pending migrations first (never `synchronize`) unless
 * `migrationsRun: false`. The DataSource is TypeORM's usual global one (@InjectDataSource).
 */
@Module({})
export class DatabaseModule {
  static forRoot(options: typeof DATABASE_OPTIONS_TYPE): DynamicModule {
    return DatabaseModule.withOptions(DatabaseOptionsModule.forRoot(options));
  }

  static forRootAsync(options: typeof DATABASE_ASYNC_OPTIONS_TYPE): DynamicModule {
    return DatabaseModule.withOptions(DatabaseOptionsModule.forRootAsync(options));
  }

  private static withOptions(optionsModule: DynamicModule): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          imports: [optionsModule],
          inject: [DATABASE_MODULE_OPTIONS],
          useFactory: async ({ migrationsRun = true, ...settings }: DatabaseModuleOptions) => {
            if (migrationsRun) {
              await runMigrations(settings);
            }
            return dataSourceOptions(settings);
          },
        }),
      ],
      exports: [TypeOrmModule],
    };
  }
}
