export * from './create-kafka';
export * from './kafka.constants';
export * from './kafka.health';
export * from './kafka.module';
export * from './ensure-topics';
