import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

/**
 * src/metadata.ts is generated (the swagger plugin's output, for SWC-compiled code): a DTO changed
 * without regenerating it would give tests and benches another API document than `nest build`. The
 * generator runs in its own process (it loads the TypeScript compiler, the Nest CLI and prettier, which
 * jest's module system cannot load as they are).
 */
it('src/metadata.ts is what the swagger plugin makes of the code now', () => {
  const run = spawnSync(
    process.execPath,
    ['-r', '@swc-node/register', resolve(__dirname, 'generate-metadata.ts'), '--check'],
    { cwd: resolve(__dirname, '../../../../..'), encoding: 'utf8' },
  );
  expect({ status: run.status, stderr: run.stderr.trim() }).toEqual({ status: 0, stderr: '' });
}, 180_000);

/** The modules src/metadata.ts loads, as paths from the repository root. */
function importedByMetadata(text: string): string[] {
  const root = resolve(__dirname, '../../../../..');
  return [...text.matchAll(/import\('([^']+)'\)/g)].map(([, spec]) =>
    relative(root, resolve(__dirname, '../..', spec)),
  );
}

it('src/metadata.ts loads only the seat API and libraries, never another app', () => {
  const imported = importedByMetadata(readFileSync(resolve(__dirname, '../../metadata.ts'), 'utf8'));
  expect(imported.length).toBeGreaterThan(0);
  expect(imported.filter((file) => !/^(apps\/seat-api|libs)\//.test(file))).toEqual([]);
});
