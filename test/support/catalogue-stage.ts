/**
 * What the catalogue e2e tests stand on: two instances of the seat API sharing PostgreSQL and Redis, an
 * admin's token and a customer's (alice).
 */
import { Api, startApi } from './seat-api';

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
