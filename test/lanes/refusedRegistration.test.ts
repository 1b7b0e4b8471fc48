/**
 * DESIGN.md §3 "Registration" and §5: a refused registering call changes nothing in Redis, not
 * even the registry `P:queues`. The runAt range needs Redis' clock, so it is judged on that
 * clock (the queue's node) before the SADD: a refused enqueue or enqueueMany on a brand-new
 * queue leaves every key byte for byte as it was, the queue unknown.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, Limits, Queue } from '../../src/lanes/index.js';
import { redisNow, refusal, snapshot, uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();
const DAY = 86_400_000;

/** A brand-new queue on a connection of its own (its registration cache empty). */
function freshQueue(): Queue {
  return new Queue(engine.client(), uniqueQueueName('refnever'));
}

describe('a refused runAt registers nothing', () => {
  it.each([
    [
      'enqueue, runAt far past',
      (q: Queue, _now: number) => q.enqueue('a', {}, { runAt: 946_684_800_000 }),
      'runAt',
    ],
    [
      'enqueue, runAt 31 days ahead',
      (q: Queue, now: number) => q.enqueue('a', {}, { runAt: now + 31 * DAY }),
      'runAt',
    ],
    [
      'enqueue with a key, runAt 31 days ago',
      (q: Queue, now: number) => q.enqueue('a', {}, { runAt: now - 31 * DAY, key: 'k' }),
      'runAt',
    ],
    [
      'enqueueMany, the second job',
      (q: Queue, now: number) =>
        q.enqueueMany([{ group: 'a' }, { group: 'b', options: { runAt: now + 31 * DAY } }]),
      'jobs[1].runAt',
    ],
    [
      'enqueueMany, a past one beside a good one',
      (q: Queue, now: number) =>
        q.enqueueMany([
          { group: 'a', options: { runAt: now + DAY } },
          { group: 'b', options: { runAt: now - 40 * DAY } },
        ]),
      'jobs[1].runAt',
    ],
  ] as const)(
    '%s: BAD_USER_INPUT, P:queues and every key unchanged',
    async (_name, call, argument) => {
      const q = freshQueue();
      const now = await redisNow(q.redis);
      const before = await snapshot(q.redis);

      const error = await refusal(() => call(q, now));
      expect(error.code).toBe(ErrorCode.BAD_USER_INPUT);
      expect(error.argument).toBe(argument);
      expect(error.message).toContain(`within ${Limits.maxDelayMs} ms`);

      expect(await snapshot(q.redis)).toEqual(before);
      expect(await q.known()).toBe(false);
    },
  );

  it('a runAt in range still works both ways: past runs at once, future is delayed, the key matches again', async () => {
    const q = freshQueue();
    const now = await redisNow(q.redis);
    const past = await q.enqueue('a', { n: 1 }, { runAt: now - DAY, key: 'p' });
    expect(past.state).toBe('PENDING');
    expect(past.runAt).toBeNull();
    const again = await q.enqueue('a', { n: 1 }, { runAt: now - DAY, key: 'p' });
    expect(again.id).toBe(past.id);
    const [later] = await q.enqueueMany([{ group: 'b', options: { runAt: now + DAY } }]);
    expect(later?.state).toBe('DELAYED');
    expect(later?.runAt).toBe(now + DAY);
    expect(await q.known()).toBe(true);
  });

  it('Queue.clock reads the clock the scripts stamp with', async () => {
    const q = freshQueue();
    const before = await q.clock();
    const job = await q.enqueue('a');
    expect(job.enqueuedAt).toBeGreaterThanOrEqual(before);
    expect((job.enqueuedAt as number) - before).toBeLessThan(5_000);
  });
});
