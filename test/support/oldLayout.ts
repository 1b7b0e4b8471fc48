/**
 * A queue of the job layout before (DESIGN.md §2, "Job layout"), written by hand: payloads and
 * scores in the job hashes, no `layout` mark. For the engine's tests of the refusal and of the
 * upgrade in place, and for the API's and the CLI's of `upgradeQueueLayout`.
 */
import type { Queue } from '../../src/lanes/index.js';

/**
 * Write into `q` (a queue never used) what the layout before left: job 1 pending in group g
 * (its payload and score in its hash), job 2 dead (kept with its payload), the totals, no
 * mark; ids minted up to `lastId` (those past 2 name no job, as ids of jobs long gone). Answers `q`.
 */
export async function writeOldLayout(q: Queue, lastId = 2): Promise<Queue> {
  const k = q.keys;
  // The dead job died just now: within the dead retention's age, so the reads still show it.
  const died = Date.now();
  await q.redis
    .multi()
    .set(k.seq, String(lastId))
    .hset(k.job('1'), {
      group: 'g',
      state: 'pending',
      attempts: '0',
      maxAttempts: '3',
      score: '1',
      enqueuedAt: '1000',
      payload: '{"old":1}',
    })
    .zadd(k.lane('g'), 1, '1')
    .rpush(k.ring, 'g')
    .zadd(k.groups, 0, 'g')
    .hset(k.job('2'), {
      group: 'g',
      state: 'dead',
      attempts: '3',
      maxAttempts: '3',
      score: '2',
      enqueuedAt: '1000',
      finishedAt: String(died),
      payload: '{"old":2}',
    })
    .zadd(k.dead, died, '2')
    .zadd(k.groupDead('g'), died, '2')
    .hset(k.stats, { enqueued: '2', pending: '1', dead: '1' })
    .exec();
  return q;
}
