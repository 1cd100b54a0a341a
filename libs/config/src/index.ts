export * from './app-config';
export * from './config.module';
export * from './environment';
export * from './load-config';
export * from './dot-env';
export * from './exit-on-boot-failure';
