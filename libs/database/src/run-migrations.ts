import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseSettings, dataSourceOptions } from './data-source-options';

/** Arbitrary constant: the advisory lock that serialises migrations across instances starting together. */
const MIGRATION_LOCK_ID = 73_310_001;

/**
 * Creates the schema if needed and applies pending migrations, holding a PostgreSQL advisory lock so
 * that several instances booting at once do not race each other's DDL.
 */
export async function runMigrations(
  settings: DatabaseSettings,
  logger = new Logger('Migrations'),
): Promise<string[]> {
  const pg = new Client({ connectionString: settings.url, connectionTimeoutMillis: 3000 });
  await pg.connect();
  try {
    await pg.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await pg.query(`CREATE SCHEMA IF NOT EXISTS "${settings.schema}"`);
    const ds = new DataSource({ ...dataSourceOptions(settings), poolSize: 1 });
    await ds.initialize();
    try {
      const applied = await ds.runMigrations({ transaction: 'each' });
      const names = applied.map((m) => m.name);
      if (names.length > 0) {
        logger.log(`applied ${names.length} migration(s) to schema ${settings.schema}: ${names.join(', ')}`);
      }
      return names;
    } finally {
      await ds.destroy();
    }
  } finally {
    await pg.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    await pg.end();
  }
}
