import { spawnSync } from 'node:child_process';

/**
 * `describe` for a file that needs the local Redis Cluster (`scripts/infra.sh cluster up`, run from the
 * machine's redis-server). Without redis-server:
 *   - in the cluster run (TEST_REDIS=cluster, `npm run test:cluster`, what CI runs) the file FAILS: a green
 *     cluster run that tested nothing on a cluster would be a lie;
 *   - in the plain run it is skipped, loudly (a developer machine that cannot start a cluster).
 * `env` is for the test of this helper (a PATH without redis-server); files pass nothing.
 */
export function redisClusterSuite(file: string, env: NodeJS.ProcessEnv = process.env): jest.Describe {
  // /bin/sh by its path: only redis-server is looked up on the PATH given
  const found = spawnSync('/bin/sh', ['-c', 'command -v redis-server'], { env }).status === 0;
  if (found) {
    return describe;
  }
  const install = 'install it (apt-get install redis-server), or run without TEST_REDIS=cluster';
  if (env.TEST_REDIS === 'cluster') {
    throw new Error(
      `${file}: redis-server not found on PATH, and the cluster run (TEST_REDIS=cluster) needs it to start ` +
        `the Redis Cluster: ${install}`,
    );
  }
  console.warn(`\n!!! ${file} SKIPPED: redis-server not found (apt-get install redis-server) !!!\n`);
  return describe.skip;
}
