import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Loads `.env` (from the working directory) into `process.env`, the same way for every entry point
 * (`npm start`, `npm run start:api`, `node dist/...`). A variable already set in the environment wins
 * over the file, as with Node's `--env-file` and dotenv, so `PORT=3100 npm start` listens on 3100.
 * No file is not an error: deployments configure through the environment alone.
 */
export function loadDotEnv(path = resolve(process.cwd(), '.env')): boolean {
  if (!existsSync(path)) {
    return false;
  }
  process.loadEnvFile(path);
  return true;
}
