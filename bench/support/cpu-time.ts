/**
 * CPU time spent by the processes under test, so a benchmark can report CPU per request: on a 2-core
 * machine shared by the load generator, the service and Redis, throughput alone mixes up their costs.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type Redis from 'ioredis';

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** User + system CPU (ms) a process has used so far, from /proc/<pid>/stat (Linux). */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // the command name (field 2) may hold spaces: count from the ')' that closes it
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime] = [Number(fields[11]), Number(fields[12])]; // fields 14 and 15 of proc(5)
  return ((utime + stime) * 1000) / CLK_TCK;
}

/** User + system CPU (ms) the Redis server has used so far, from INFO cpu. */
export async function redisCpuMs(redis: Redis): Promise<number> {
  return cpuMsOfInfo(await redis.info('cpu'));
}

/** User + system CPU (ms) in the text of one node's INFO cpu. */
export function cpuMsOfInfo(info: string): number {
  const read = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return (read('used_cpu_user') + read('used_cpu_sys')) * 1000;
}
