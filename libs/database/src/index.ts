export * from './data-source-options';
export * from './database.module';
export * from './database.module-definition';
export * from './entities';
export * from './run-migrations';
export * from './bounded-client';
export * from './deadline';
