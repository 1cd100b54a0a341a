import { loadConfig } from '@app/config';

/** @EventPattern needs the topic when the class is defined: read it from the validated environment then. */
export function seatExpiredTopic(): string {
  return loadConfig().kafka.seatExpiredTopic;
}
