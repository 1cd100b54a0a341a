/* `npm run migration:run`: apply migrations without starting the service (only DATABASE_* is read). */
import 'reflect-metadata';
import { BaseConfig, loadDotEnv } from '@app/config';
import { runMigrations } from './run-migrations';

loadDotEnv();

runMigrations(BaseConfig.load().database)
  .then((applied) => console.log(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date'))
  .catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
