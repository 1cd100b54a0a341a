import { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { ALL_ENTITIES } from './entities';
import { ALL_MIGRATIONS } from './migrations';

export interface DatabaseSettings {
  url: string;
  schema: string;
  poolSize: number;
}

/** Tables live in their own schema (search_path), so test runs and deployments can share one database. */
export function dataSourceOptions(settings: DatabaseSettings): PostgresConnectionOptions {
  return {
    type: 'postgres',
    url: settings.url,
    schema: settings.schema,
    entities: ALL_ENTITIES,
    migrations: ALL_MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    migrationsRun: false,
    synchronize: false,
    poolSize: settings.poolSize,
    extra: {
      options: `-c search_path=${settings.schema}`,
      connectionTimeoutMillis: 3000,
      statement_timeout: 10000,
    },
  };
}
