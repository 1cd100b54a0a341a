/* `npm run migration:run`: apply migrations without starting the service. */
import 'reflect-metadata';
import { loadConfig } from '@app/config';
import { runMigrations } from './run-migrations';

runMigrations(loadConfig().database)
  .then((applied) => console.log(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date'))
  .catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
