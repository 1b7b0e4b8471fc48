import { readFileSync } from 'node:fs';

let known: string | null | undefined;

/**
 * The Ringmaster version this engine is, from its package's `package.json` (two folders up from
 * `src/lanes`, `dist/lanes` and the server's bundle in `dist/server` alike); null when it cannot
 * be read. A worker reports it at each heartbeat (DESIGN.md §4.9 "Workers").
 */
export function engineVersion(): string | null {
  if (known === undefined) {
    try {
      const json = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
      const version = (JSON.parse(json) as { version?: unknown }).version;
      known = typeof version === 'string' ? version : null;
    } catch {
      known = null;
    }
  }
  return known;
}
