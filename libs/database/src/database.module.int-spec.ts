/**
 * DatabaseModule takes its own options: forRoot, and forRootAsync with useFactory/inject or
 * useClass, each giving a DataSource on the real PostgreSQL, in the schema it was given, migrated. No
 * AppConfig.
 *
 * @needs postgres
 */
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DatabaseModule, DatabaseModuleOptions, DatabaseOptionsFactory } from '.';

const url = process.env.DATABASE_URL!;
const schema = process.env.DATABASE_SCHEMA!;
const SETTINGS = Symbol('SETTINGS');

@Module({ providers: [{ provide: SETTINGS, useValue: { url, schema } }], exports: [SETTINGS] })
class SettingsModule {}

@Injectable()
class DatabaseOptions implements DatabaseOptionsFactory {
  createDatabaseOptions(): DatabaseModuleOptions {
    return { url, schema: `${schema}_c`, poolSize: 2 };
  }
}

/** Boots the module alone and reads which schema its connections use and whether migrations ran there. */
async function migratedIn(
  module: ReturnType<typeof DatabaseModule.forRoot>,
  expected: string,
): Promise<void> {
  const moduleRef = await Test.createTestingModule({ imports: [module] }).compile();
  await moduleRef.init();
  try {
    const db = moduleRef.get<DataSource>(getDataSourceToken());
    const [{ current }] = await db.query<{ current: string }[]>('SELECT current_schema() AS current');
    expect(current).toBe(expected);
    const [{ n }] = await db.query<{ n: number }[]>('SELECT count(*)::int AS n FROM typeorm_migrations');
    expect(n).toBeGreaterThan(0);
  } finally {
    await moduleRef.close();
  }
}

describe(DatabaseModule.name, () => {
  it('forRoot(options)', async () => {
    await migratedIn(DatabaseModule.forRoot({ url, schema: `${schema}_r`, poolSize: 2 }), `${schema}_r`);
  });

  it('forRootAsync with useFactory and inject', async () => {
    await migratedIn(
      DatabaseModule.forRootAsync({
        imports: [SettingsModule],
        inject: [SETTINGS],
        useFactory: (s: { url: string; schema: string }) => ({
          url: s.url,
          schema: `${s.schema}_f`,
          poolSize: 2,
        }),
      }),
      `${schema}_f`,
    );
  });

  it('forRootAsync with useClass', async () => {
    await migratedIn(DatabaseModule.forRootAsync({ useClass: DatabaseOptions }), `${schema}_c`);
  });
});
