import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { exitOnBootFailure, loadConfig, loadDotEnv } from '@app/config';
import { createSeatApi } from './bootstrap/create-app';

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const app = await createSeatApi();
  await app.listen(config.http.port, config.http.host);
  Logger.log(
    `seat-api listening on http://${config.http.host}:${config.http.port} (docs at /docs)`,
    'Bootstrap',
  );
}

main().catch(exitOnBootFailure);
