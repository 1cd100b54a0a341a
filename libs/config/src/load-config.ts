import { AppConfig } from './app-config';

export { ConfigValidationError } from './validate-environment';

/**
 * The seat API's configuration from `source` (default process.env), validated: for code outside DI
 * (specs, benches, tools). The apps inject AppConfig (ConfigModule.forRoot(AppConfig)) instead.
 */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  return AppConfig.load(source);
}
