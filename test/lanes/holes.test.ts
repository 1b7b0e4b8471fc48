/**
 * DESIGN.md §5: an array a caller passes may have holes (`[, x]`, a sparse array), which
 * `Array.prototype.map` and `filter` skip. Every engine call that takes one reads a hole as the
 * undefined it reads as, so it is refused (or, for an operator action's ids, skipped) like any
 * other bad entry, before anything is sent: Redis is left byte for byte as it was.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, Reaper, Ringmaster } from '../../src/lanes/index.js';
import { refusal, snapshot, uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();

/** `[, ...rest]`: an array whose index 0 is a hole. */
function holeFirst<T>(...rest: T[]): T[] {
  const array = new Array<T>(rest.length + 1);
  for (const [i, v] of rest.entries()) array[i + 1] = v;
  expect(0 in array).toBe(false);
  return array;
}

describe('a hole in a caller array', () => {
  it.each([
    [
      'enqueueMany jobs',
      (rm: Ringmaster, q: string) => rm.queue(q).enqueueMany(holeFirst({ group: 'a' })),
      ErrorCode.BAD_USER_INPUT,
      'jobs[0]',
      /must be an object \{ group, payload\?, options\? \}/,
    ],
    [
      'watchJobs ids',
      (rm: Ringmaster, q: string) => rm.queue(q).watchJobs(holeFirst('1'), 1_000),
      ErrorCode.JOB_NOT_FOUND,
      undefined,
      /./,
    ],
    [
      'completeAndClaim tokens',
      (rm: Ringmaster, q: string) =>
        rm.queue(q).completeAndClaim([], { claim: 2, tokens: holeFirst('t-1') }),
      ErrorCode.BAD_USER_INPUT,
      'token',
      /./,
    ],
    [
      'snapshot ids',
      (rm: Ringmaster, q: string) => rm.queue(q).snapshot({ ids: holeFirst('a') }),
      ErrorCode.BAD_USER_INPUT,
      'ids',
      /./,
    ],
    [
      'Reaper queues',
      async (rm: Ringmaster, q: string) => new Reaper(rm, { queues: holeFirst(q) }),
      ErrorCode.BAD_USER_INPUT,
      undefined,
      /./,
    ],
  ] as const)(
    '%s: refused before anything is sent, nothing written',
    async (_name, call, code, argument, message) => {
      const rm = new Ringmaster(engine.client());
      const q = uniqueQueueName('hole');
      const before = await snapshot(engine.redis());

      const error = await refusal(() => call(rm, q));
      expect(error.code).toBe(code);
      if (argument !== undefined) expect(error.argument).toBe(argument);
      expect(error.message).toMatch(message);

      expect(await snapshot(engine.redis())).toEqual(before);
      expect(await rm.queue(q).known()).toBe(false);
    },
  );

  it('removeJobs and requeueDead ids: a hole names no job, so it is skipped as a malformed id is', async () => {
    const q = new Ringmaster(engine.client()).queue(uniqueQueueName('hole'));
    const job = await q.enqueue('a');
    expect(await q.removeJobs({ ids: holeFirst(job.id) })).toEqual({
      count: 1,
      remaining: 0,
      skipped: 1,
    });
    expect(await q.requeueDead({ ids: holeFirst('7') })).toEqual({
      count: 0,
      remaining: 0,
      skipped: 2,
    });
  });
});
