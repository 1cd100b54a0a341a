export * from './seat-expired/seat-expired.event';
export * from './seat-expired/seat-expired.schema';
export * from './seat-expired/seat-expired.record';
export * from './booking-cancelled/booking-cancelled.event';
export * from './booking-cancelled/booking-cancelled.schema';
export * from './booking-cancelled/booking-cancelled.record';
