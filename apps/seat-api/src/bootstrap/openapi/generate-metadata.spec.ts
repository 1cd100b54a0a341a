import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

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
