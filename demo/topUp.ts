/**
 * The demo's backlog: top a group up to a target, never add to what a restart finds. The demo
 * keeps its Redis (`.data/demo`), so enqueuing a fixed 3,000 at every start grew the saved
 * backlog by 3,000 each time (issue 13).
 */
import type { Queue } from '../src/lanes/index.js';

/**
 * Enqueue jobs of `group` until it has `target` pending (count); none when it has as many
 * already. Returns how many were enqueued.
 * @param payload makes each job's payload
 */
export async function topUp(
  queue: Queue,
  group: string,
  target: number,
  payload: () => unknown,
): Promise<number> {
  const missing = Math.max(0, target - (await queue.group(group)).pending);
  for (let i = 0; i < missing; i++) await queue.enqueue(group, payload());
  return missing;
}
