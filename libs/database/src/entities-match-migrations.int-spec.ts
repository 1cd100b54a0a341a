/**
 * The entities declare the schema the migrations build, so `npm run migration:generate` against an
 * up-to-date schema finds nothing to do. If an entity and the migrations disagree (a foreign key, index
 * or check only one of them has), TypeORM proposes DDL here, and a generated migration would carry it.
 *
 * @needs postgres
 */
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';
import { runMigrations } from './run-migrations';

const url = process.env.DATABASE_URL!;
const migrated = { url, schema: `${process.env.DATABASE_SCHEMA!}_gen`, poolSize: 1 };
const synchronized = { url, schema: `${process.env.DATABASE_SCHEMA!}_sync`, poolSize: 1 };

/**
 * Columns, constraints (with their definitions) and indexes of the schema's tables, as PostgreSQL
 * reports them, with the schema's name taken out so two schemas compare. TypeORM's bookkeeping table is
 * left out: only the migrated schema has one.
 */
async function catalog(pg: Client, schema: string): Promise<string[]> {
  const rows = async (sql: string) =>
    (await pg.query(sql, [schema])).rows.map((r) => JSON.stringify(r).split(`${schema}.`).join(''));
  return [
    ...(await rows(`
      SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default
        FROM information_schema.columns
       WHERE table_schema = $1 AND table_name <> 'typeorm_migrations' ORDER BY 1, 2`)),
    ...(await rows(`
      SELECT c.conrelid::regclass::text AS "table", c.conname, pg_get_constraintdef(c.oid) AS def
        FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
       WHERE n.nspname = $1 AND c.conrelid::regclass::text NOT LIKE '%typeorm_migrations' ORDER BY 2`)),
    ...(await rows(`
      SELECT indexname, indexdef FROM pg_indexes
       WHERE schemaname = $1 AND tablename <> 'typeorm_migrations' ORDER BY 1`)),
  ];
}

describe('entities match the migrations', () => {
  let ds: DataSource;

  beforeAll(async () => {
    await runMigrations(migrated);
    ds = await new DataSource(dataSourceOptions(migrated)).initialize();
  });

  afterAll(async () => {
    await ds?.destroy();
  });

  it('migration:generate on a freshly migrated schema proposes no statement', async () => {
    // The same diff the CLI's migration:generate writes into a migration's up().
    const { upQueries } = await ds.driver.createSchemaBuilder().log();
    expect(upQueries.map((q) => q.query)).toEqual([]);
  });

  // TypeORM's diff matches checks, foreign keys and indexes by name (and ON DELETE, columns, uniqueness),
  // not by expression or WHERE clause; building the schema from the entities alone and comparing what
  // PostgreSQL stored catches an entity that names a constraint right but declares it differently.
  it('the entities alone build the same tables, constraints and indexes as the migrations', async () => {
    const pg = new Client({ connectionString: url });
    await pg.connect();
    try {
      await pg.query(`CREATE SCHEMA "${synchronized.schema}"`);
      const fromEntities = new DataSource({ ...dataSourceOptions(synchronized), synchronize: true });
      await (await fromEntities.initialize()).destroy();

      const expected = await catalog(pg, migrated.schema);
      expect(expected.length).toBeGreaterThan(0);
      expect(await catalog(pg, synchronized.schema)).toEqual(expected);
    } finally {
      await pg.end();
    }
  });

  // What README's migration:generate note warns about: for a real change, TypeORM's Postgres driver
  // qualifies an index it drops with the schema the CLI ran against (DATABASE_SCHEMA), which a migration
  // run in another deployment's schema must not carry. Here the diff of a schema missing one index.
  it('a generated DROP INDEX names the schema it was generated against', async () => {
    const missingIndex = { url, schema: `${process.env.DATABASE_SCHEMA!}_idx`, poolSize: 1 };
    await runMigrations(missingIndex);
    const other = await new DataSource(dataSourceOptions(missingIndex)).initialize();
    try {
      await other.query(`DROP INDEX hold_expiries_hold_idx`);
      const { upQueries, downQueries } = await other.driver.createSchemaBuilder().log();
      expect(upQueries.map((q) => q.query)).toEqual([
        `CREATE INDEX "hold_expiries_hold_idx" ON "hold_expiries" ("hold_id") `,
      ]);
      expect(downQueries.map((q) => q.query)).toEqual([
        `DROP INDEX "${missingIndex.schema}"."hold_expiries_hold_idx"`,
      ]);
    } finally {
      await other.destroy();
    }
  });
});
