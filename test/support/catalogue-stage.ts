/**
 * What the catalogue e2e tests stand on: the seat API with the test's own view of PostgreSQL, or two
 * instances of the API sharing PostgreSQL and Redis; and an admin's token and a customer's (alice).
 */
import { Db, openDb } from './db';
import { Api, startApi } from './seat-api';

/** The test closes `api` and `db` itself: a test may restart the API, and the one to close is its last. */
export interface CatalogueStage {
  api: Api;
  /** The test's own view of PostgreSQL. */
  db: Db;
  admin: string;
  alice: string;
}

export async function startCatalogueStage(): Promise<CatalogueStage> {
  const api = await startApi();
  let db: Db;
  try {
    db = await openDb();
  } catch (e) {
    await api.close();
    throw e;
  }
  return { api, db, admin: await api.token('admin-1', ['admin']), alice: await api.token('alice') };
}

/** Two instances of the API on the same PostgreSQL and Redis, each with its own copy of what it caches. */
export interface TwoInstances {
  a: Api;
  b: Api;
  admin: string;
  alice: string;
  close(): Promise<void>;
}

export async function startTwoInstances(): Promise<TwoInstances> {
  const a = await startApi();
  let b: Api;
  try {
    b = await startApi();
  } catch (e) {
    await a.close();
    throw e;
  }
  return {
    a,
    b,
    // one secret signs for both instances: a token from either is good on the other
    admin: await a.token('admin-1', ['admin']),
    alice: await a.token('alice'),
    async close() {
      await a.close();
      await b.close();
    },
  };
}
