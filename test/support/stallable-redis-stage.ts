/**
 * The seat API on a private redis-server, for the tests of a Redis that stalls longer than the API waits:
 * CLIENT PAUSE on the private server holds this API's commands alone, and the API gives up on a reply
 * after 200 ms.
 */
import { PrivateRedis, startPrivateRedis } from './private-redis';
import { Api, createEvent, startApi } from './seat-api';

export interface StallableRedisStage {
  redis: PrivateRedis;
  api: Api;
  /** A show of one row of ten seats, S-A-1 to S-A-10. */
  eventId: string;
  alice: string;
  /** Closes the API, then stops the private server. */
  close(): Promise<void>;
}

export async function startStallableRedisStage(): Promise<StallableRedisStage> {
  const redis = await startPrivateRedis();
  let api: Api;
  try {
    api = await startApi({
      REDIS_URL: redis.url,
      REDIS_CLUSTER_NODES: '', // the private server alone, in the cluster run too
      REDIS_COMMAND_TIMEOUT_MS: '200',
      RATE_LIMIT_ENABLED: 'false',
      // far beyond a test: a hold that goes was undone, never expired
      HOLD_DEFAULT_TTL_SECONDS: '300',
    });
  } catch (e) {
    await redis.stop();
    throw e;
  }
  const close = async () => {
    await api.close();
    await redis.stop();
  };
  try {
    return { redis, api, eventId: await createEvent(api, 1, 10), alice: await api.token('alice'), close };
  } catch (e) {
    await close();
    throw e;
  }
}
