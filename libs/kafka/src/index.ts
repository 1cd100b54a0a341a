// first: the fix applies to every kafkajs client of the process, Nest's own included
import './request-queue-timer';
export * from './create-kafka';
export * from './kafka-log';
export * from './kafka.constants';
export * from './kafka.health';
export * from './kafka.module';
export * from './kafka.module-definition';
export * from './ensure-topics';
export * from './consumer/configured-topic';
export * from './consumer/consumer-health.controller';
export * from './consumer/group-membership';
export * from './consumer/observed-server-kafka';
