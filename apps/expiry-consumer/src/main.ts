import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { exitOnBootFailure, loadDotEnv } from '@app/config';
import { startExpiryConsumer } from './create-consumer';

loadDotEnv(); // before the app reads its config: .env fills what the environment does not set

startExpiryConsumer()
  .then(async (app) =>
    Logger.log(`expiry consumer ready, health on ${await app.getUrl()}/health`, 'Bootstrap'),
  )
  .catch(exitOnBootFailure);
