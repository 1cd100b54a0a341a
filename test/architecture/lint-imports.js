/**
 * Lints import lines with the repository's ESLint configuration, running only `no-restricted-imports`
 * (it needs no type information, so the files named need not exist). A plain Node script because ESLint
 * imports eslint.config.mjs natively, which jest's module system cannot do: the boundaries test runs it
 * as a child process. Reads { cases: [{ file, source }], files: [glob] } on stdin; writes
 * { cases: [[message]], files: ["path:line message"] } on stdout.
 */
const { ESLint } = require('eslint');
const { readFileSync } = require('node:fs');
const { relative } = require('node:path');

const restricted = (result) => {
  const fatal = result.messages.filter((m) => m.fatal);
  if (fatal.length > 0) {
    throw new Error(`${result.filePath}: ${fatal.map((m) => m.message).join('; ')}`);
  }
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports');
};

async function main() {
  const input = JSON.parse(readFileSync(0, 'utf8'));
  const eslint = new ESLint({
    cwd: process.cwd(),
    ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
    overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
  });
  const cases = [];
  for (const { file, source } of input.cases) {
    const [result] = await eslint.lintText(`import { x } from '${source}';\nexport const y = x;\n`, {
      filePath: file,
    });
    cases.push(restricted(result).map((m) => m.message));
  }
  const linted = input.files.length > 0 ? await eslint.lintFiles(input.files) : [];
  const files = linted.flatMap((r) =>
    restricted(r).map((m) => `${relative(process.cwd(), r.filePath)}:${m.line} ${m.message}`),
  );
  process.stdout.write(JSON.stringify({ cases, files }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
