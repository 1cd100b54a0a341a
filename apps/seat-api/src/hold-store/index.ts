export * from './event-admin.store';
export * from './hold-ids';
export * from './hold-keys';
export * from './hold-store.module';
export * from './hold.store';
export * from './hold.types';
export * from './seat-change-log';
export * from './staff-hold.store';
