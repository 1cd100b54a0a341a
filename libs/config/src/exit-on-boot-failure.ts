import { ConfigValidationError } from './load-config';

/**
 * What an entry point does when boot fails: a configuration error is the operator's to fix, so it is
 * printed as the list of variables (no stack trace to dig through); anything else keeps its stack.
 */
export function exitOnBootFailure(e: unknown): never {
  if (e instanceof ConfigValidationError) {
    console.error(e.message);
  } else {
    console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  }
  process.exit(1);
}
