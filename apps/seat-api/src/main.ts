import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { AppConfig, exitOnBootFailure, loadDotEnv } from '@app/config';
import { createSeatApi } from './bootstrap/create-app';

async function main(): Promise<void> {
  loadDotEnv(); // before the app reads its config: .env fills what the environment does not set
  const app = await createSeatApi();
  const { port, host } = app.get(AppConfig).http;
  await app.listen(port, host);
  Logger.log(`seat-api listening on http://${host}:${port} (docs at /docs)`, 'Bootstrap');
}

main().catch(exitOnBootFailure);
