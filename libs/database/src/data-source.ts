/**
 * The DataSource the TypeORM CLI uses (`npm run migration:generate|revert|show`), from the shared
 * variables only (DATABASE_*: `.env` and the environment, environment first), so it needs no app's
 * secrets. The apps never import this file: they get their DataSource from DatabaseModule.
 */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { BaseConfig, loadDotEnv } from '@app/config';
import { dataSourceOptions } from './data-source-options';

loadDotEnv();

export default new DataSource(dataSourceOptions(BaseConfig.load().database));
