/**
 * The DataSource the TypeORM CLI uses (`npm run migration:generate|revert|show`), built from the same
 * validated configuration as the apps (`.env` and the environment, environment first). The apps never
 * import this file: they get their DataSource from DatabaseModule.
 */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig, loadDotEnv } from '@app/config';
import { dataSourceOptions } from './data-source-options';

loadDotEnv();

export default new DataSource(dataSourceOptions(loadConfig().database));
