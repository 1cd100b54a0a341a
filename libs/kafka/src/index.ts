export * from './create-kafka';
export * from './kafka-log';
export * from './kafka.constants';
export * from './kafka.health';
export * from './kafka.module';
export * from './kafka.module-definition';
export * from './ensure-topics';
