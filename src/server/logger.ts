/** The process logger (pino); components take child loggers (`logger.child({ component })`). */
import { type Logger, pino } from 'pino';

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'ringmaster' } });
}
