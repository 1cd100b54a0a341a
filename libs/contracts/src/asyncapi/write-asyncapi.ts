/** Writes docs/asyncapi.yaml from the contracts (npm run asyncapi); asyncapi-document.spec.ts checks it is fresh. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { asyncApiDocument } from './asyncapi-document';

export const ASYNCAPI_FILE = join(__dirname, '..', '..', '..', '..', 'docs', 'asyncapi.yaml');

export function asyncApiYaml(): string {
  return `# Generated from libs/contracts (npm run asyncapi): edit the contracts, not this file.\n${stringify(asyncApiDocument(), { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

if (require.main === module) {
  writeFileSync(ASYNCAPI_FILE, asyncApiYaml());
}
