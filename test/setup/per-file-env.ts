/**
 * Runs in each test file's sandbox before its modules load: gives the file its own database schema,
 * Redis key prefix and Kafka topic names, derived from the run id, so files and runs never share state.
 */
import 'reflect-metadata';
// tests that use kafkajs directly get the fix the apps get through libs/kafka (no 1 ms timer per idle connection)
import '@app/kafka/request-queue-timer';
import { randomBytes } from 'node:crypto';

const run = process.env.TEST_RUN_ID ?? 'adhoc';
const file = randomBytes(3).toString('hex');

process.env.NODE_ENV = 'test';
process.env.TEST_FILE_ID = file;
process.env.DATABASE_SCHEMA = `t_${run.toLowerCase()}_${file}`;
process.env.REDIS_KEY_PREFIX = `t:${run}:${file}:`;
process.env.KAFKA_TOPIC_SEAT_EXPIRED = `seat.expired.${run}.${file}`;
process.env.KAFKA_TOPIC_DEAD_LETTER = `seat.expired.dlq.${run}.${file}`;
process.env.KAFKA_TOPIC_SEAT_STATUS = `seat.status.${run}.${file}`;
process.env.KAFKA_CONSUMER_GROUP = `history.${run}.${file}`;
process.env.AUTH_JWT_SECRET = process.env.AUTH_JWT_SECRET ?? 'test-secret-0123456789abcdef';
process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'warn';
// Tests play thousands of requests as a handful of users; test/holds/rate-limit.e2e-spec.ts turns limits on.
process.env.RATE_LIMIT_ENABLED = process.env.RATE_LIMIT_ENABLED ?? 'false';
// Tests hold whichever seats they like: their events leave single seats alone unless a test of the
// orphan rule creates its event with settings.orphanRule 'no-single-gaps' (test/holds/orphan-rule.e2e-spec.ts).
process.env.EVENT_ORPHAN_RULE = process.env.EVENT_ORPHAN_RULE ?? 'none';
