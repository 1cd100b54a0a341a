import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { startExpiryConsumer } from './create-consumer';

startExpiryConsumer()
  .then(async (app) =>
    Logger.log(`expiry consumer ready, health on ${await app.getUrl()}/health`, 'Bootstrap'),
  )
  .catch((e: unknown) => {
    console.error(e instanceof Error ? (e.stack ?? e.message) : e);
    process.exit(1);
  });
