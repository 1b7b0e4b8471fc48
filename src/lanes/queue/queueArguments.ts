/**
 * What `new Queue(…)` was given, read into one shape (DESIGN.md §4.1, "Connections"): a name
 * and `{ connection, … }` (BullMQ's order), or a connection, a name and options (the engine's
 * own, and `Ringmaster.queue`'s). Everything is checked before a connection is opened, so a
 * refused call opens nothing.
 */
import { Defaults } from '../defaults.js';
import { badInput } from '../errors.js';
import type { RedisClient } from '../redis/client.js';
import { Connection } from '../redis/connection.js';
import { isRedisClient, openConnection, type RedisConnection } from '../redis/connectionOption.js';
import { assertPlainKeys } from '../redis/plainKeys.js';
import * as validate from '../validate.js';

/** Engine-wide settings a queue needs. */
export interface QueueOptions {
  /**
   * With `new Queue(name, options)` only, and required there: the connection (an ioredis
   * client, a `redis://` URL or ioredis options: {@link RedisConnection}).
   */
  readonly connection?: RedisConnection;
  /**
   * Key prefix `P` (DESIGN.md §2): 1 to 64 of A-Z a-z 0-9 . _ - : (the server's `KEY_PREFIX`
   * rule; anything else is BAD_USER_INPUT `prefix`). Default `emq`.
   */
  readonly prefix?: string;
  /**
   * Who this handle's steering calls are recorded as when a call names no `actor` of its own
   * (DESIGN.md §4.6). Default `Defaults.actor` ('engine').
   */
  readonly actor?: string;
  /**
   * The most entries the queue's history stream keeps (count; 0 records none). Every steering
   * call passes it to its script, which trims the stream to it. Default `Defaults.historyMaxLen`.
   */
  readonly historyMaxLen?: number;
}

/** The right call, ending every refusal of a shape. */
export const QUEUE_EXAMPLE = "new Queue('orders', { connection: new Redis(url) })";

const QUEUE_OPTIONS: validate.OptionNames<Omit<QueueOptions, 'connection'>> = {
  prefix: true,
  actor: true,
  historyMaxLen: true,
};

/** A Queue's constructor arguments, checked. */
export interface QueueArguments {
  readonly name: string;
  readonly prefix: string;
  readonly actor: string;
  readonly historyMaxLen: number;
  /** The engine's state of the connection (shared by every handle on the same client). */
  readonly connection: Connection;
  /** The queue opened the connection (from a URL or options) and closes it on `close()`. */
  readonly owned: boolean;
}

/**
 * Read `new Queue(first, second, third)`.
 * @throws RingmasterError BAD_USER_INPUT, one line ending with {@link QUEUE_EXAMPLE}: `name`
 *   when the first argument is neither a queue name nor a connection; `options` when a name
 *   comes without an options object; `options.connection` when it is missing, is not a
 *   connection ({@link openConnection}), or is given after a connection; `queue` for an
 *   invalid name; `prefix` for a prefix that breaks its rule (`validate.keyPrefix`: 1 to 64
 *   of A-Z a-z 0-9 . _ - :); `options.<name>` for an unknown option; the `keyPrefix`/`db` refusal of
 *   {@link assertPlainKeys}
 */
export function queueArguments(first: unknown, second: unknown, third: unknown): QueueArguments {
  if (typeof first === 'string') {
    if (typeof second !== 'object' || second === null || Array.isArray(second)) {
      throw badInput(
        'options',
        `new Queue(name, options) takes { connection, prefix?, actor?, historyMaxLen? } after the name, not ${validate.kindOf(second)}: ${QUEUE_EXAMPLE}`,
      );
    }
    if (isRedisClient(second)) {
      throw badInput(
        'options',
        `new Queue(name, options) takes the connection inside the options: new Queue('orders', { connection: redis })`,
      );
    }
    const { connection, ...rest } = second as QueueOptions;
    const options = validate.options('options', rest, QUEUE_OPTIONS, ['connection']);
    if (connection === undefined) {
      throw badInput('options.connection', `is required: ${QUEUE_EXAMPLE}`);
    }
    const checked = settings(first, options);
    const opened = openConnection(connection, 'options.connection', QUEUE_EXAMPLE, checked.prefix);
    return { ...checked, connection: Connection.of(opened.redis), owned: opened.owned };
  }
  if (!(first instanceof Connection) && !isRedisClient(first)) {
    throw badInput(
      'name',
      `new Queue takes a queue name first (or a connection, then the name), not ${validate.kindOf(first)}: ${QUEUE_EXAMPLE}`,
    );
  }
  if (typeof third === 'object' && third !== null && Object.hasOwn(third, 'connection')) {
    throw badInput(
      'options.connection',
      `is not an option when the connection comes first: new Queue(redis, 'orders') or ${QUEUE_EXAMPLE}`,
    );
  }
  const options = validate.options('options', third as QueueOptions | undefined, QUEUE_OPTIONS);
  const redis: RedisClient = first instanceof Connection ? first.redis : first;
  const checked = settings(second, options);
  assertPlainKeys(redis, { prefix: checked.prefix });
  return {
    ...checked,
    connection: first instanceof Connection ? first : Connection.of(redis),
    owned: false,
  };
}

/** The name and the settings, checked (BAD_USER_INPUT `queue`, `prefix`, `options.actor`). */
function settings(
  name: unknown,
  options: QueueOptions,
): Omit<QueueArguments, 'connection' | 'owned'> {
  return {
    name: validate.queueName(name),
    prefix: options.prefix === undefined ? Defaults.prefix : validate.keyPrefix(options.prefix),
    actor: options.actor == null ? Defaults.actor : validate.actor(options.actor, 'options.actor'),
    historyMaxLen: options.historyMaxLen ?? Defaults.historyMaxLen,
  };
}
