/** The Cluster hash slot of a key: one implementation, in the Redis library (tests import it from here). */
export { keySlot, SLOTS } from '@app/redis';
