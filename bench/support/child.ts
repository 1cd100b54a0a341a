/** Starts TypeScript entry points (the service, the floor) as child processes and waits until they answer. */
import { ChildProcess, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import * as path from 'node:path';

export const repoRoot = path.resolve(__dirname, '..', '..');

export interface Child {
  proc: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * V8 flags of every child, as scripts/start.sh and the Dockerfile run the apps: the service measured as
 * production runs it, and the floor with the same young generation so the two compare like for like.
 */
export const SERVER_NODE_ARGS = ['--max-semi-space-size=64'];

/**
 * Runs `entry` (a .ts file, relative to the checkout `root`: this one unless another is named, as
 * bench:builds does) with swc; stdout and stderr go to `logFile`.
 */
export function spawnTs(
  entry: string,
  env: Record<string, string>,
  logFile: string,
  nodeArgs: readonly string[] = SERVER_NODE_ARGS,
  root = repoRoot,
): Child {
  const log = openSync(logFile, 'a');
  // BENCH_PROFILE=1 writes a V8 CPU profile per child into bench/results/profile.tmp when it stops
  const profile = process.env.BENCH_PROFILE ? ['-r', path.join(__dirname, 'cpu-profile.js')] : [];
  const proc = spawn(
    process.execPath,
    [...nodeArgs, ...profile, '-r', '@swc-node/register', path.join(root, entry)],
    {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', log, log],
    },
  );
  return { proc, stop: stopper(proc) };
}

/** Stops the child with `signal`, then SIGKILL if it has not exited within 10 s. */
function stopper(proc: ChildProcess): Child['stop'] {
  return async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      return;
    }
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill(signal);
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL');
      await exited;
    }
  };
}

/**
 * Runs a built entry point (`dist/...`, relative to `root`) with `node <nodeArgs>`, as scripts/start.sh and
 * the Dockerfile run the apps; stdout and stderr go to `logFile`.
 */
export function spawnBuilt(
  entry: string,
  env: Record<string, string>,
  logFile: string,
  nodeArgs: readonly string[],
  root = repoRoot,
): Child {
  const log = openSync(logFile, 'a');
  const profile = process.env.BENCH_PROFILE ? ['-r', path.join(__dirname, 'cpu-profile.js')] : [];
  const proc = spawn(process.execPath, [...nodeArgs, ...profile, entry], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', log, log],
  });
  return { proc, stop: stopper(proc) };
}

/** Polls `url` until it answers 200 (or the child dies, or `timeoutMs` passes). */
export async function waitUntilUp(url: string, child: Child, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.proc.exitCode !== null) {
      throw new Error(`${url}: the process exited with ${child.proc.exitCode} before answering`);
    }
    try {
      if ((await fetch(url)).status === 200) {
        return;
      }
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
