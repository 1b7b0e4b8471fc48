/**
 * `LOG_FORMAT=pretty` (DESIGN.md §6): each pino line as a person reads it, for development —
 * `14:03:07.412 WARN  [redis] message key=value …`, an error's stack indented below it; JSON
 * stays the default for machines. Coloured when its stream is a terminal.
 */

import pc from 'picocolors';
import type { DestinationStream } from 'pino';

/** pino's level numbers, as words padded to one width, with their colour. */
const LEVELS: Record<number, [string, (text: string) => string]> = {
  10: ['TRACE', pc.dim],
  20: ['DEBUG', pc.dim],
  30: ['INFO ', pc.green],
  40: ['WARN ', pc.yellow],
  50: ['ERROR', pc.red],
  60: ['FATAL', pc.red],
};

/** What every line has, or is said in the line's head rather than as `key=value`. */
const HEAD = new Set(['level', 'time', 'msg', 'service', 'component', 'pid', 'hostname']);

/** A field's value in a line: text bare unless it holds a space or quote, the rest as JSON. */
function valueText(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value) ?? String(value);
}

/** One pino record (parsed) as a readable line, plus its error's stack when it has one. */
export function prettyLine(record: Record<string, unknown>, colour: boolean): string {
  const paint = (style: (text: string) => string, text: string) => (colour ? style(text) : text);
  const time = typeof record.time === 'number' ? new Date(record.time) : new Date();
  const clock = time.toISOString().slice(11, 23);
  const [word, style] = LEVELS[Number(record.level)] ?? [String(record.level), pc.dim];
  const component = typeof record.component === 'string' ? `[${record.component}] ` : '';
  let stack = '';
  const fields = Object.entries(record)
    .filter(([key]) => !HEAD.has(key))
    .map(([key, value]) => {
      const err = value as { message?: unknown; stack?: unknown } | null;
      if (key === 'err' && typeof err === 'object' && err !== null) {
        if (typeof err.stack === 'string') stack = `\n    ${err.stack.split('\n').join('\n    ')}`;
        return `err=${valueText(err.message ?? err)}`;
      }
      return `${key}=${valueText(value)}`;
    });
  const text = [String(record.msg ?? ''), ...fields.map((f) => paint(pc.dim, f))].join(' ');
  return `${paint(pc.dim, clock)} ${paint(style, word)} ${component}${text}${stack}`;
}

/**
 * A pino destination writing each record to `out` as {@link prettyLine}; a line that is not
 * JSON (none should be) is written as it came.
 */
export function prettyDestination(out: NodeJS.WriteStream = process.stdout): DestinationStream {
  const colour = out.isTTY === true && !('NO_COLOR' in process.env);
  return {
    write(line: string): void {
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      out.write(`${prettyLine(record, colour)}\n`);
    },
  };
}
