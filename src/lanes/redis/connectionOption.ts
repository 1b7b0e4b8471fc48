/**
 * The `connection` a caller names (DESIGN.md §4.1, "Connections"): an ioredis client it made,
 * or a URL or ioredis options the engine opens a client from and then owns (closes on
 * `close()`). Every refusal is one BAD_USER_INPUT line ending with the right call.
 */
import type { RedisOptions } from 'ioredis';
import { badInput } from '../errors.js';
import { kindOf } from '../validate.js';
import { openClient, type RedisClient } from './client.js';
import { assertPlainKeys } from './plainKeys.js';

/**
 * What a caller may name as the connection: an ioredis `Redis` or `Cluster` (theirs to close),
 * a `redis://` or `rediss://` URL, or ioredis `Redis` options naming the server (`host`,
 * `port`, `path` or `sentinels`); from the last two the engine opens a `Redis` of its own.
 */
export type RedisConnection = RedisClient | string | RedisOptions;

/** A connection ready for the engine, and whether the engine opened it (and so closes it). */
export interface OpenedConnection {
  readonly redis: RedisClient;
  readonly owned: boolean;
}

/** Options that say where the server is; without one ioredis would quietly use localhost:6379. */
const SERVER_OPTIONS = ['host', 'port', 'path', 'sentinels'] as const;

/**
 * True for an ioredis `Redis` or `Cluster`, of any copy of ioredis: an object with the client
 * methods the engine calls and an options object.
 */
export function isRedisClient(value: unknown): value is RedisClient {
  if (typeof value !== 'object' || value === null) return false;
  const client = value as Record<string, unknown>;
  return (
    typeof client.sendCommand === 'function' &&
    typeof client.duplicate === 'function' &&
    typeof client.defineCommand === 'function' &&
    typeof client.options === 'object' &&
    client.options !== null
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** What a value is, for a refusal: `kindOf`, with an object's class when it has one. */
function described(value: unknown): string {
  if (typeof value === 'object' && value !== null && !isPlainObject(value)) {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string' && name !== '' && name !== 'Object') return `a ${name}`;
  }
  return kindOf(value);
}

/** The scheme of a URL-like string (`http:` of `http://…`), or ''; never its credentials. */
function schemeOf(text: string): string {
  return /^([A-Za-z][A-Za-z0-9+.-]*:)\/\//.exec(text)?.[1] ?? '';
}

/**
 * The connection `value` names, ready for the engine: a client as given (`owned` false), or a
 * `Redis` opened from a URL or options (`owned` true; lazy, so nothing connects before the
 * first command, with an 'error' listener so a reconnect loop prints nothing: commands report
 * the failure). Checked before anything is opened; the opened client is checked as a given
 * one is ({@link assertPlainKeys}) and dropped when refused.
 * @param argument the name the refusal gives (`options.connection`, `redis`)
 * @param example the right call, ending every refusal's message
 * @param prefix Ringmaster's key prefix, for the `keyPrefix` refusal's suggestion
 * @throws RingmasterError BAD_USER_INPUT (`argument`) for anything else: a string that is not a
 *   `redis://` or `rediss://` URL, options naming no server, another kind of object, a number,
 *   null, undefined; a URL with no host; a database (`db`, a URL's path) that is not a whole
 *   number 0 or more, a port not 1..65535; or options whose `keyPrefix` or `db` moves keys
 *   ({@link assertPlainKeys})
 */
export function openConnection(
  value: unknown,
  argument: string,
  example: string,
  prefix: string,
): OpenedConnection {
  if (isRedisClient(value)) {
    assertPlainKeys(value, { prefix });
    return { redis: value, owned: false };
  }
  const refuse = (what: string) => badInput(argument, `${what}: ${example}`);
  const kinds = 'an ioredis Redis or Cluster, a redis:// or rediss:// URL, or ioredis options';
  let redis: RedisClient;
  if (typeof value === 'string') {
    const scheme = schemeOf(value);
    if (!/^rediss?:$/i.test(scheme)) {
      throw refuse(
        scheme === ''
          ? `must be ${kinds}; a string must be a redis:// or rediss:// URL, and this one has no scheme`
          : `must be a redis:// or rediss:// URL, not ${scheme}//…`,
      );
    }
    if (/^rediss?:\/\/(?:[^@/?#]*@)?(?:[:/?#]|$)/i.test(value)) {
      throw refuse(
        `has no host: the host is missing after ${scheme}//, as in redis://localhost:6379`,
      );
    }
    if (!URL.canParse(value)) throw refuse('is not a valid redis:// URL');
    redis = openClient(value);
  } else if (isPlainObject(value)) {
    if (!SERVER_OPTIONS.some((name) => value[name] !== undefined)) {
      throw refuse(
        `ioredis options must name the server (host, port, path or sentinels), as { host: 'localhost', port: 6379 } does`,
      );
    }
    redis = openClient(value as RedisOptions);
  } else {
    throw refuse(`must be ${kinds} { host, port }, not ${described(value)}`);
  }
  try {
    assertAddress(redis, refuse);
    assertPlainKeys(redis, { prefix });
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  return { redis, owned: true };
}

/**
 * The port and database of a client just opened from a URL or options, as ioredis read them (a
 * string is parsed, `'abc'` being NaN): a database a non-negative integer, and a port (unless a
 * socket path or sentinels say where) an integer 1..65535. Else ioredis would run `SELECT NaN`,
 * or Node throw ERR_SOCKET_BAD_PORT, only at the first command.
 */
function assertAddress(redis: RedisClient, refuse: (what: string) => Error): void {
  const { db, port, path, sentinels } = redis.options as RedisOptions;
  if (db !== undefined && !(Number.isSafeInteger(db) && db >= 0)) {
    throw refuse(
      'the database (db) must be a whole number, 0 or more, as redis://host:6379/0 says',
    );
  }
  const byPort = !path && !(Array.isArray(sentinels) && sentinels.length > 0);
  if (byPort && port !== undefined && !(Number.isInteger(port) && port >= 1 && port <= 65_535)) {
    throw refuse('the port must be a whole number from 1 to 65535');
  }
}

/**
 * Close a connection the engine opened: QUIT when it is connected (the replies of commands
 * sent before it still arrive), else drop it at once (a lazy client never used, one
 * reconnecting to a Redis that is down). Never throws; resolves once it is closed (status
 * `end`).
 */
export async function closeConnection(redis: RedisClient): Promise<void> {
  if (redis.status === 'end') return;
  if (redis.status !== 'ready') {
    redis.disconnect();
    return;
  }
  // QUIT is answered before the socket closes: 'end' says it is closed, and will not reconnect.
  const ended = new Promise<void>((resolve) => redis.once('end', () => resolve()));
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
  await ended;
}
