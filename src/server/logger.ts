/** The process logger (pino); components take child loggers (`logger.child({ component })`). */
import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.js';
import { prettyDestination } from './prettyLog.js';
import { maskUrl } from './startupError.js';

/**
 * A pino logger at `level`. Secrets never reach a line: a `url` field has its password masked
 * as start-up errors mask REDIS_URL (`maskUrl`), and an ioredis error's command arguments (AUTH
 * carries the password) and any `password` field are replaced by `****`.
 * @param destination where lines go; stdout when omitted
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'ringmaster' },
    serializers: { url: (url: unknown) => (typeof url === 'string' ? maskUrl(url) : url) },
    redact: {
      paths: ['password', '*.password', 'err.command.args', '*.err.command.args'],
      censor: '****',
    },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}

/** The process's logger as configured: `LOG_LEVEL`, and `LOG_FORMAT` (JSON, or pretty lines). */
export function loggerOf(config: Pick<Config, 'logLevel' | 'logFormat'>): Logger {
  return createLogger(
    config.logLevel,
    config.logFormat === 'pretty' ? prettyDestination(process.stdout) : undefined,
  );
}
