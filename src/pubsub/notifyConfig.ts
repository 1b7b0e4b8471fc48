/**
 * The `notify-keyspace-events` setting the feed needs (DESIGN.md §6): read what the server has,
 * add the flags the feed needs, never remove any. Run at start and after every reconnect, since
 * a restarted or promoted Redis forgets a runtime CONFIG SET.
 */
import type { RedisClient } from '../lanes/redis/client.js';

/**
 * K: keyspace channels; l: lists (the ring); h: hashes (glimit, gactive, a job's hash); s: sets
 * (paused); z: sorted sets (a group's lane); g: generic (DEL when a key empties or a job's hash
 * is deleted, and writers' DEL/RENAME); t: streams (the steering history's XADD, DESIGN.md §4.6).
 */
export const NEEDED_FLAGS = 'Klhszgt';

/** What Redis' `A` stands for (7.x; a superset of older versions' alias). */
const ALIAS_A = 'g$lshzxetd';

/** Thrown when the server does not answer CONFIG as a Redis that honours it would. */
export class ConfigRefusedError extends Error {
  override readonly name = 'ConfigRefusedError';
}

/** The flags of `needed` that `current` lacks (Redis prints `A` for the whole class set). */
export function missingFlags(current: string, needed: string = NEEDED_FLAGS): string {
  const have = new Set(current.replaceAll('A', ALIAS_A));
  return [...new Set(needed)].filter((flag) => !have.has(flag)).join('');
}

/** What the feed did to the setting. */
export interface NotifyConfigResult {
  /** The setting as the server reported it before (normalised by Redis, e.g. `AKE`). */
  readonly before: string;
  /** The setting now. */
  readonly after: string;
  /** Whether a CONFIG SET was sent. */
  readonly changed: boolean;
}

async function readFlags(redis: RedisClient): Promise<string> {
  const reply = (await redis.config('GET', 'notify-keyspace-events')) as unknown;
  if (!Array.isArray(reply) || typeof reply[1] !== 'string') {
    throw new ConfigRefusedError('CONFIG GET notify-keyspace-events returned no value');
  }
  return reply[1];
}

/**
 * Make sure `redis`'s server publishes the keyspace events in `needed`, adding them to the flags
 * already set. Must run on a connection that is not in subscriber mode.
 * @throws ReplyError when CONFIG is refused (renamed, ACL), or {@link ConfigRefusedError} when the
 *   server answers but does not keep the setting; connection errors pass through.
 */
export async function applyNotifyConfig(
  redis: RedisClient,
  needed: string = NEEDED_FLAGS,
): Promise<NotifyConfigResult> {
  const before = await readFlags(redis);
  const missing = missingFlags(before, needed);
  if (missing === '') return { before, after: before, changed: false };
  await redis.config('SET', 'notify-keyspace-events', before + missing);
  const after = await readFlags(redis);
  if (missingFlags(after, needed) !== '') {
    throw new ConfigRefusedError(
      `notify-keyspace-events is ${JSON.stringify(after)} after CONFIG SET ${before + missing}`,
    );
  }
  return { before, after, changed: true };
}
