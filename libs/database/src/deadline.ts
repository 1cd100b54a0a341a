import { DataSource, QueryRunner } from 'typeorm';

/**
 * A call on PostgreSQL ran past the time it was given, on the client's side: the server did not answer
 * (or not in time). Whether a statement already sent took effect is not known from here.
 */
export class DatabaseDeadlineError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`PostgreSQL did not answer within ${timeoutMs} ms`);
    this.name = 'DatabaseDeadlineError';
  }
}

/**
 * Runs `work` on one pooled connection and gives up after `timeoutMs` on the client's side, whatever the
 * server does: a server that cannot answer (partition, frozen host) sends no statement_timeout error
 * either. Waiting for a connection counts. At the deadline the connection is ended, so the statement in
 * flight fails at once and the pool never hands that connection out again; the caller gets
 * DatabaseDeadlineError. The connection goes back to the pool (or away) once `work` has settled.
 */
export async function onConnectionWithin<T>(
  db: DataSource,
  timeoutMs: number,
  work: (qr: QueryRunner) => Promise<T>,
): Promise<T> {
  const qr = db.createQueryRunner();
  let expired = false;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        expired = true;
        endConnection(qr);
        reject(new DatabaseDeadlineError(timeoutMs));
      },
      Math.max(1, Math.ceil(timeoutMs)),
    );
  });
  const run = (async () => {
    try {
      await qr.connect();
      if (expired) {
        throw new DatabaseDeadlineError(timeoutMs);
      }
      return await work(qr);
    } finally {
      await qr.release().catch(() => undefined);
    }
  })();
  try {
    return await Promise.race([run, deadline]);
  } finally {
    clearTimeout(timer);
    run.catch(() => undefined); // after the deadline, its failure is already answered
  }
}

/** Ends the query runner's pg connection, if it has one: an in-flight statement fails at once. */
function endConnection(qr: QueryRunner): void {
  const client = (qr as QueryRunner & { databaseConnection?: { end(): Promise<void> } }).databaseConnection;
  void client?.end().catch(() => undefined);
}
