/**
 * The line a Worker says at its start when its queue is not known (DESIGN.md §4.1, "A worker
 * on a queue nobody knows"): a misspelt name or another prefix would otherwise idle for ever in
 * silence. Worded as the CLI's note for the same case (`noteUnknownQueue`).
 */
import { queuesKey } from './keys.js';
import type { Queue } from './queue/queue.js';
import { isQueueName } from './validate.js';

/** Names of the known queues the line shows at most (a sample when there are more). */
const SHOWN = 5;

/**
 * Null when `queue` is in its prefix's registry (`P:queues`, {@link Queue.known}); else the
 * line naming the queue, the prefix and how many queues that prefix knows, with a few of them.
 * One SISMEMBER, then (when unknown) SCARD, SRANDMEMBER and one more SISMEMBER, so a queue
 * registered meanwhile (a job enqueued as the worker starts) is not called unknown: never a scan
 * of the registry.
 * @throws what the queue's connection throws (Redis unreachable)
 */
export async function unknownQueueLine(queue: Queue): Promise<string | null> {
  if (await queue.known()) return null;
  const registry = queuesKey(queue.prefix);
  // A job enqueued meanwhile registers the queue: the listing or a second look, sent after it
  // on the same connection (so in the same round trip), shows it then.
  const [count, sample, knownNow] = await Promise.all([
    queue.redis.scard(registry),
    queue.redis.srandmember(registry, SHOWN),
    queue.known(),
  ]);
  const names = sample.filter(isQueueName).sort();
  if (knownNow || names.includes(queue.name)) return null;
  const known =
    count === 0
      ? 'no queue is known under that prefix'
      : `${count} ${count === 1 ? 'queue' : 'queues'} known there: ${names.join(', ')}${count > names.length ? ', …' : ''}`;
  return (
    `ringmaster worker: queue ${JSON.stringify(queue.name)} is not known to this Redis under ` +
    `prefix ${JSON.stringify(queue.prefix)} (no job or setting was ever written to it; ${known}): ` +
    'check the queue name and the prefix; it will wait for jobs enqueued there'
  );
}
