export * from './auth-user';
export * from './auth.decorators';
export * from './auth.module';
export * from './roles';
