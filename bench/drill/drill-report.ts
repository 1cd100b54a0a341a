/**
 * bench/results/drill.md holds the last run of each mode: a run rewrites its own section and keeps the
 * other mode's, so the single-Redis and the cluster drill can be read side by side.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { machineFacts } from '../support/report';

const MODES = {
  single: '## Single Redis (`npm run drill`)',
  cluster: '## Redis Cluster (`npm run drill:cluster`)',
} as const;

export function writeDrillReport(mode: keyof typeof MODES, lines: string[]): string {
  const dir = path.resolve(__dirname, '..', 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'drill.md');
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const sectionOf = (m: keyof typeof MODES) => {
    const at = old.indexOf(MODES[m]);
    if (at < 0) {
      return '';
    }
    const next = Object.values(MODES)
      .map((h) => old.indexOf(h, at + 1))
      .filter((i) => i > at);
    return old.slice(at, next.length ? Math.min(...next) : undefined).trimEnd();
  };
  const fresh = [MODES[mode], '', ...machineFacts(), ...lines].join('\n');
  const sections = (Object.keys(MODES) as (keyof typeof MODES)[]).map((m) =>
    m === mode ? fresh : sectionOf(m) || `${MODES[m]}\n\nnot run yet`,
  );
  writeFileSync(file, ['# Fault drill', '', ...sections.flatMap((s) => [s, ''])].join('\n'));
  return file;
}
