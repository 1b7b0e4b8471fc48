/**
 * A call on a handle whose connection has ended (DESIGN.md §5, CONNECTION_CLOSED): ioredis
 * status `end`, after the handle's `close()`, the client's `quit()` or `disconnect()`, or a
 * `retryStrategy` that gave up. Such a client never reconnects by itself, so reporting it as
 * REDIS_UNAVAILABLE ("retry later") would keep a retry loop spinning for ever.
 */
import { codedRedisFailure, ErrorCode, fromRedisError, RingmasterError } from '../errors.js';
import type { RedisClient } from './client.js';
import { MISSING_DATABASE, unavailableWhere } from './unavailable.js';

/**
 * The error for a call of `handle` (`Queue`, `Ringmaster`) on `redis` when its connection has
 * ended; undefined while it is open, connecting or reconnecting.
 * - CONNECTION_CLOSED in one line saying so and what to do (a new handle, on a new client if it
 *   was given one); `cause` is `error` when given;
 * - REDIS_UNAVAILABLE naming the database when the engine ended its own connection because the
 *   server lacks its database (`openClient`): a configuration, which a new handle would meet
 *   again.
 * @param error what the call failed with, for a call that failed as the connection ended (it
 *   may have been applied); none for the check made before anything is sent
 */
export function connectionEnded(
  redis: RedisClient,
  handle: string,
  error?: unknown,
): RingmasterError | undefined {
  if (redis.status !== 'end') return undefined;
  const where = unavailableWhere(redis, error);
  if (where.includes(MISSING_DATABASE)) {
    return fromRedisError(error ?? new Error('Connection is closed.'), where);
  }
  const sent =
    error === undefined ? 'nothing was sent' : 'this call, cut as it closed, may have been applied';
  const closed = new RingmasterError(
    ErrorCode.CONNECTION_CLOSED,
    `Redis connection closed: this ${handle}'s connection has ended (its close(), the client's quit() or disconnect(), or a retryStrategy that gave up) and does not reopen, so ${sent}: make a new ${handle} (with a new client if you gave it one)`,
  );
  if (error !== undefined) closed.cause = error;
  return closed;
}

/**
 * The one path of every `Queue` and `Ringmaster` call to Redis: on an ended connection, reject
 * with CONNECTION_CLOSED and send nothing; else run `run` (what it throws synchronously is thrown
 * as it is) and reject with `codedRedisFailure`'s error (REDIS_NOT_PERMITTED naming `prefix`,
 * REDIS_OUT_OF_MEMORY, REDIS_UNAVAILABLE), a failure cut by the connection ending as
 * CONNECTION_CLOSED; any other error unchanged. `queue`, when given, is set on the error.
 */
export function callOpen<T>(
  redis: RedisClient,
  handle: string,
  prefix: string,
  queue: string | undefined,
  run: () => Promise<T>,
): Promise<T> {
  const named = (error: RingmasterError): RingmasterError => {
    if (queue !== undefined) error.queue = queue;
    return error;
  };
  const closed = connectionEnded(redis, handle);
  if (closed) return Promise.reject(named(closed));
  return run().catch((error: unknown) => {
    const coded = codedRedisFailure(error, prefix, queue, (cause) =>
      unavailableWhere(redis, cause),
    );
    const cut =
      coded instanceof RingmasterError && coded.code === ErrorCode.REDIS_UNAVAILABLE
        ? connectionEnded(redis, handle, error)
        : undefined;
    throw cut ? named(cut) : coded;
  });
}
