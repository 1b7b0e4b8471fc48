/** The process logger (pino); components take child loggers (`logger.child({ component })`). */
import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.js';
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

/**
 * The process's logger as configured: `LOG_LEVEL`, and `LOG_FORMAT` (DESIGN.md §6): JSON, or
 * pino-pretty's lines. pino-pretty is imported only for `pretty`, so a JSON server never loads
 * it (the bundle leaves it to node_modules: `LAZY` in scripts/bundle.mjs).
 */
export async function loggerOf(config: Pick<Config, 'logLevel' | 'logFormat'>): Promise<Logger> {
  if (config.logFormat === 'json') return createLogger(config.logLevel);
  const { isColorSupported, prettyFactory } = await import('pino-pretty');
  const prettify = prettyFactory({
    // Colour on a terminal only: colorette also says yes when CI is set, whatever stdout is.
    colorize: isColorSupported && process.stdout.isTTY === true,
    translateTime: 'HH:MM:ss.l',
    ignore: 'pid,hostname,service,component',
    messageFormat: '{if component}[{component}] {end}{msg}',
    singleLine: true,
  });
  // Written as pino hands each line over, as its JSON is: nothing is lost at process.exit.
  return createLogger(config.logLevel, {
    write: (line: string) => process.stdout.write(prettify(line)),
  });
}
