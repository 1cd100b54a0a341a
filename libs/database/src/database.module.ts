import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '@app/config';
import { dataSourceOptions } from './data-source-options';
import { runMigrations } from './run-migrations';

/** TypeORM on PostgreSQL. Boot applies pending migrations first (never `synchronize`). */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: async (config: AppConfig) => {
        await runMigrations(config.database);
        return dataSourceOptions(config.database);
      },
    }),
  ],
  exports: [TypeOrmModule],
})
export class DatabaseModule {}
