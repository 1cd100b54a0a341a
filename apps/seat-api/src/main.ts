import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { loadConfig } from '@app/config';
import { createSeatApi } from './bootstrap/create-app';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createSeatApi();
  await app.listen(config.http.port, config.http.host);
  Logger.log(
    `seat-api listening on http://${config.http.host}:${config.http.port} (docs at /docs)`,
    'Bootstrap',
  );
}

main().catch((e: unknown) => {
  // Config errors name the variable; anything else is logged with its stack before exiting.
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});
