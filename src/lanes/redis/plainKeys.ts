/**
 * The one check that a connection handed to Ringmaster puts keys where the scripts expect them.
 *
 * ioredis' `keyPrefix` is prepended to the keys a command declares (and to a script's KEYS),
 * but not to the keys a script builds from ARGV or from its `base` key: the lane a claim picks
 * (`P:{Q}:g:<group>:pending`) and a new job's hash (`P:{Q}:job:<id>`). With a prefix, enqueue
 * writes the lane at `app:P:{Q}:g:…` and claim looks at `P:{Q}:g:…`, finds nothing, drops the
 * group from the ring as a stale head, and the job is stranded. A connection
 * whose current database is not the one its options name does the same to the connections
 * Ringmaster duplicates from it (the worker's BLPOP, reconcile's WATCH, the keyspace subscriber):
 * `duplicate()` opens them on `options.db`. Both are refused before anything is sent.
 */
import type { Cluster, Redis } from 'ioredis';
import { Defaults } from '../defaults.js';
import { RingmasterError } from '../errors.js';

/** What the refusal's message should name. */
export interface PlainKeysOptions {
  /**
   * Where the connection's options came from, when not from code: `'REDIS_URL'` makes the
   * message name that variable and `KEY_PREFIX` as the fix. Default: the caller's options.
   */
  readonly source?: 'REDIS_URL';
  /** Ringmaster's key prefix `P`, for the suggested replacement. Default `emq`. */
  readonly prefix?: string;
}

/** `keyPrefix` as ioredis will apply it, from a Redis (incl. a URL's `?keyPrefix=`) or a Cluster. */
function keyPrefixOf(redis: Redis | Cluster): string {
  const options = redis.options as {
    keyPrefix?: string | Buffer;
    redisOptions?: { keyPrefix?: string | Buffer };
  };
  // A Cluster copies `redisOptions.keyPrefix` to its own `keyPrefix` when that is unset, and
  // applies that one; both are read in case the options object was edited after construction.
  const prefix = options.keyPrefix || options.redisOptions?.keyPrefix || '';
  return String(prefix);
}

/** ` (KEY_PREFIX=app puts every key under app:)` for `app:`, when the stem is a valid KEY_PREFIX. */
function keyPrefixExample(keyPrefix: string): string {
  const stem = keyPrefix.replace(/:+$/, '');
  return /^[A-Za-z0-9._-]{1,64}$/.test(stem)
    ? ` (KEY_PREFIX=${stem} puts every key under ${stem}:)`
    : '';
}

/**
 * Refuse a connection whose options move keys away from where Ringmaster's scripts look.
 * Cheap (reads the connection's options, sends nothing), so every entry point calls it.
 *
 * Refused:
 * - ioredis `keyPrefix`, on a `Redis` (its options, or `?keyPrefix=` in its URL) or a `Cluster`
 *   (its options or `redisOptions.keyPrefix`);
 * - a `Redis` that ran `SELECT n` to a database other than its `db` option (the connections
 *   Ringmaster duplicates from it would use the other one).
 *
 * @param redis the connection given to Ringmaster, a Queue, a Worker or a LiveFeed
 * @throws RingmasterError BAD_USER_INPUT (argument `redis`) naming the option and the fix:
 *   Ringmaster's own `prefix` option (the server's `KEY_PREFIX`) or the `db` option
 */
export function assertPlainKeys(redis: Redis | Cluster, options: PlainKeysOptions = {}): void {
  const prefix = keyPrefixOf(redis);
  if (prefix !== '') {
    const where =
      options.source === 'REDIS_URL'
        ? `REDIS_URL sets the ioredis option keyPrefix=${JSON.stringify(prefix)}`
        : `the connection has the ioredis option keyPrefix ${JSON.stringify(prefix)}`;
    const fix =
      options.source === 'REDIS_URL'
        ? `remove it from REDIS_URL and set KEY_PREFIX instead${keyPrefixExample(prefix)}`
        : `drop keyPrefix and pass Ringmaster's own prefix option instead ` +
          `({ prefix: ${JSON.stringify(`${prefix}${options.prefix ?? Defaults.prefix}`)} } gives the same key names)`;
    throw new RingmasterError(
      'BAD_USER_INPUT',
      `redis: ${where}, which ioredis does not apply to the lane and job keys Ringmaster's ` +
        `scripts build, so jobs would be stranded; ${fix}`,
      'redis',
    );
  }
  if ('condition' in redis && redis.condition !== null && redis.condition !== undefined) {
    const selected = Number(redis.condition.select ?? 0);
    const configured = Number(redis.options.db ?? 0);
    if (selected !== configured) {
      throw new RingmasterError(
        'BAD_USER_INPUT',
        `redis: the connection ran SELECT ${selected} but its db option is ${configured}; the ` +
          `connections Ringmaster opens from it (duplicate()) would use database ${configured}. ` +
          `Create the connection with { db: ${selected} } (or redis://host:port/${selected}) instead of SELECT`,
        'redis',
      );
    }
  }
}
