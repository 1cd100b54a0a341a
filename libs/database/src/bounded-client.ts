import { Client } from 'pg';

/** pg's error for a statement that got no answer within query_timeout. */
const READ_TIMEOUT = 'Query read timeout';

/**
 * The pool's connection class: pg's Client, except that a statement that timed out on the client's side
 * (query_timeout) ends its connection. pg only fails the caller's promise and leaves the statement in
 * flight: the connection would go back to the pool still waiting for that answer, and every later
 * statement on it would queue behind a server that does not answer. Ended, the pool forgets it and opens
 * a new one when the server is back.
 */
export class BoundedClient extends Client {
  override query: Client['query'] = ((...args: unknown[]) => {
    const sent = (super.query as (...a: unknown[]) => unknown)(...args);
    if (sent instanceof Promise) {
      sent.catch((e: unknown) => {
        if (e instanceof Error && e.message === READ_TIMEOUT) {
          void this.end().catch(() => undefined);
        }
      });
    }
    return sent;
  }) as Client['query'];
}
