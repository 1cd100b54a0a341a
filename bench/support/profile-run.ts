/**
 * A V8 CPU profile of one measured run of a bench child started with BENCH_PROFILE=1 (cpu-profile.js
 * preloaded): SIGWINCH starts it, SIGWINCH again writes bench/results/profile.tmp/<pid>.cpuprofile, which
 * is then renamed to `<label>.cpuprofile` at once (several benches may write into that directory).
 * Without BENCH_PROFILE (or with `enabled` false) it only runs `run`.
 */
import { existsSync, renameSync } from 'node:fs';
import * as path from 'node:path';
import { Child } from './child';

export const PROFILE_DIR = path.resolve(__dirname, '..', 'results', 'profile.tmp');

export async function profiledRun<T>(
  child: Child,
  label: string,
  run: () => Promise<T>,
  enabled = true,
): Promise<T> {
  if (!process.env.BENCH_PROFILE || !enabled) {
    return run();
  }
  child.proc.kill('SIGWINCH'); // starts the profile
  const result = await run();
  const written = path.join(PROFILE_DIR, `${child.proc.pid}.cpuprofile`);
  const target = path.join(PROFILE_DIR, `${label}.cpuprofile`);
  child.proc.kill('SIGWINCH'); // stops it and writes it (asynchronously, in the child)
  for (let i = 0; i < 100 && !existsSync(written); i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 200)); // writeFileSync finished: the file is whole
  if (existsSync(written)) {
    renameSync(written, target);
    console.log(`profile: ${target}`);
  }
  return result;
}
