/** Direct PostgreSQL access for assertions, in this test file's own schema (search_path set once). */
import { Client } from 'pg';

export interface Db {
  rows<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  count(table: string, where?: string, params?: unknown[]): Promise<number>;
  close(): Promise<void>;
}

export async function openDb(): Promise<Db> {
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  await client.query(`SET search_path TO ${process.env.DATABASE_SCHEMA}`);
  const rows = async <T>(text: string, params: unknown[] = []) =>
    (await client.query(text, params)).rows as T[];
  return {
    rows,
    async count(table, where = 'true', params = []) {
      const [r] = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params);
      return r.n;
    },
    close: () => client.end(),
  };
}
