import { DatabaseDeadlineError } from './deadline';

/**
 * Whether an error from PostgreSQL (pg, through TypeORM) means "PostgreSQL could not answer this now; the
 * same call may succeed shortly", so callers answer 503 with Retry-After instead of a 500: our own client
 * deadline (DatabaseDeadlineError), the pool's or the driver's timeouts and lost connections (pg gives
 * these no class, only their messages), and the server's own refusals of that kind by SQLSTATE: a
 * connection exception (class 08), a statement cancelled by statement_timeout (57014), a server shutting
 * down or starting (57P01-57P03), too many connections (53300).
 */
const CLIENT_GAVE_UP =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|ECONNREFUSED|ECONNRESET|Connection is not established|connect ETIMEDOUT/i;
const UNAVAILABLE_STATES = /^(08...|57014|57P0[123]|53300)$/;

export function isDatabaseUnavailable(e: unknown): boolean {
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 5; c = c.cause, depth++) {
    if (c instanceof DatabaseDeadlineError || CLIENT_GAVE_UP.test(c.message)) {
      return true;
    }
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE_STATES.test(code)) {
      return true;
    }
    const driver = (c as { driverError?: unknown }).driverError;
    if (driver instanceof Error && driver !== c.cause && isDatabaseUnavailable(driver)) {
      return true;
    }
  }
  return false;
}
