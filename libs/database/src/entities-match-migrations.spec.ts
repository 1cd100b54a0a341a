/**
 * The entities declare the schema the migrations build, so `npm run migration:generate` against an
 * up-to-date schema finds nothing to do. If an entity and the migrations disagree (a foreign key, index
 * or check only one of them has), TypeORM proposes DDL here, and a generated migration would carry it.
 */
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';
import { runMigrations } from './run-migrations';

const settings = {
  url: process.env.DATABASE_URL!,
  schema: `${process.env.DATABASE_SCHEMA!}_gen`,
  poolSize: 1,
};

describe('entities match the migrations', () => {
  let ds: DataSource;

  beforeAll(async () => {
    await runMigrations(settings);
    ds = await new DataSource(dataSourceOptions(settings)).initialize();
  });

  afterAll(async () => {
    await ds?.destroy();
  });

  it('migration:generate on a freshly migrated schema proposes no statement', async () => {
    // The same diff the CLI's migration:generate writes into a migration's up().
    const { upQueries } = await ds.driver.createSchemaBuilder().log();
    expect(upQueries.map((q) => q.query)).toEqual([]);
  });
});
