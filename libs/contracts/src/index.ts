export * from './seat-expired/seat-expired.event';
export * from './seat-expired/seat-expired.schema';
export * from './seat-expired/seat-expired.record';
