import { ConsoleLogger, LogLevel } from '@nestjs/common';

const ORDER: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/** Nest's own logger in JSON mode (one object per line) for production, coloured text for a terminal. */
export function createLogger(level: LogLevel, format: 'json' | 'pretty', context?: string): ConsoleLogger {
  const logLevels = ORDER.slice(0, ORDER.indexOf(level) + 1);
  return new ConsoleLogger(context ?? 'App', {
    json: format === 'json',
    logLevels,
    colors: format === 'pretty',
  });
}
