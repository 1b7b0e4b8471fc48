/**
 * ioredis writes a few warnings with `console.warn` (redis/event_handler.js: a password given to
 * a Redis that has none, AUTH with a user name on Redis 5), as raw `[WARN] …` lines on stderr
 * outside the JSON log, once per connection and reconnection. While the server runs they go
 * into its log instead, at warn, each once, with what to change; other console.warn calls pass
 * through untouched.
 */
import type { Logger } from 'pino';

/** ioredis' texts (a prefix of each) → what the operator should do. */
const KNOWN: readonly (readonly [RegExp, string])[] = [
  [
    /^\[WARN\] (Redis server does not require a password|This Redis server's `default` user does not require a password)/,
    'REDIS_URL gives a password, but this Redis needs none (its AUTH was refused and ignored): remove the password from REDIS_URL, or give Redis one (requirepass)',
  ],
  [
    /^\[ERROR\] The server returned "wrong number of arguments for 'auth' command"/,
    'REDIS_URL gives a user name, which Redis 5 and older do not take: give only the password (redis://:PASSWORD@host:port)',
  ],
];

/**
 * Route ioredis' console warnings into `logger` (at warn, each kind once) until the returned
 * function is called, which puts `console.warn` back.
 */
export function routeIoredisWarnings(logger: Logger): () => void {
  const original = console.warn;
  const said = new Set<string>();
  console.warn = (...args: unknown[]) => {
    const text = typeof args[0] === 'string' ? args[0] : '';
    const known = KNOWN.find(([pattern]) => pattern.test(text));
    if (known === undefined) {
      original.apply(console, args);
      return;
    }
    if (said.has(known[1])) return;
    said.add(known[1]);
    logger.warn({ component: 'ioredis', ioredis: text }, known[1]);
  };
  return () => {
    if (console.warn !== original) console.warn = original;
  };
}
