import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { exitOnBootFailure, loadDotEnv } from '@app/config';
import { startExpiryConsumer } from './create-consumer';

loadDotEnv();

startExpiryConsumer()
  .then(async (app) =>
    Logger.log(`expiry consumer ready, health on ${await app.getUrl()}/health`, 'Bootstrap'),
  )
  .catch(exitOnBootFailure);
