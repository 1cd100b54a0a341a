/**
 * kafkajs (2.2.4, its last release) keeps every broker connection of an idle client busy: after each
 * response, RequestQueue.scheduleCheckPendingRequests arms a timer for `throttledUntil - now`, which is
 * negative when nothing throttles the connection (throttledUntil is -1), so Node runs it after 1 ms (with a
 * TimeoutNegativeWarning); the timer runs the check, which arms it again, for as long as the connection
 * lives: an idle client wakes a thousand times a second per connection for nothing, most of its CPU.
 *
 * The check only sends the requests waiting in `pending` (held back by a throttle or the in-flight limit).
 * With none waiting there is nothing to check: `push` schedules the check itself when it queues one, and a
 * response that frees an in-flight slot runs it. So the timer is armed only while a request waits.
 */

interface RequestQueueInternals {
  pending: unknown;
  scheduleCheckPendingRequests: (this: RequestQueueInternals) => void;
}

const PATCHED = Symbol.for('seat-hold.kafkajs.request-queue-timer');

// kafkajs exports no type for its internals; the class is the module's export
// eslint-disable-next-line @typescript-eslint/no-require-imports
const RequestQueue = require('kafkajs/src/network/requestQueue') as {
  prototype: RequestQueueInternals & { [PATCHED]?: true };
};

/** Applies the fix to kafkajs's RequestQueue (every client of the process); a second call does nothing. */
export function armRequestQueueTimerOnlyWhenPending(): void {
  const proto = RequestQueue.prototype;
  if (proto[PATCHED]) {
    return;
  }
  const schedule = proto.scheduleCheckPendingRequests;
  proto.scheduleCheckPendingRequests = function () {
    // a kafkajs whose queue is not an array any more is left to its own scheduling
    if (!Array.isArray(this.pending) || this.pending.length > 0) {
      schedule.call(this);
    }
  };
  proto[PATCHED] = true;
}

armRequestQueueTimerOnlyWhenPending();
