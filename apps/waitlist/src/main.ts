import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { exitOnBootFailure, loadDotEnv } from '@app/config';
import { startWaitlist } from './create-waitlist';

loadDotEnv(); // before the app reads its config: .env fills what the environment does not set

startWaitlist()
  .then(async (app) => Logger.log(`waitlist ready, health on ${await app.getUrl()}/health`, 'Bootstrap'))
  .catch(exitOnBootFailure);
