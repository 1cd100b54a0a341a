import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Machine facts every report starts with: figures only mean something next to them. No date: a report is
 * overwritten by each run of its command, and git keeps what it said before.
 */
export function machineFacts(redisVersion?: string): string[] {
  let redis = redisVersion;
  if (!redis) {
    try {
      redis = execFileSync('redis-server', ['--version'])
        .toString()
        .match(/v=([\d.]+)/)?.[1];
    } catch {
      redis = 'unknown';
    }
  }
  return [
    `- cores: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}`,
    `- memory: ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    `- node: ${process.version}`,
    `- redis: ${redis}`,
    // the machine is shared (other test runs): how busy it was when the figures were taken
    `- load average (1 / 5 / 15 min) at the end of the run: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ')}`,
  ];
}

export function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Writes bench/results/<name>.md, replacing what the last run wrote there (no history is appended). */
export function writeReport(name: string, title: string, command: string, sections: string[]): string {
  const dir = path.resolve(__dirname, '..', 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.md`);
  const body = [`# ${title}`, '', `Command: \`${command}\``, '', ...machineFacts(), '', ...sections, ''].join(
    '\n',
  );
  writeFileSync(file, body);
  return file;
}
