/**
 * Poison pills (DESIGN.md §4.1, "Worker"): whatever a processor throws, returns or rejects with
 * — a value `String()` cannot convert, a Proxy that throws on every trap, an Error whose
 * `message`, `stack` or `name` getter throws or answers no string, a rejected thenable, a
 * synchronous throw — the attempt ends as a failure recorded with readable text, the permit is
 * freed (the group's other jobs at limit 1 then run), the Worker emits `failed` and never
 * `error`, and `close()` resolves. Before, such a value made the Worker's rejection handler
 * throw: the slot never settled, its lease was extended for ever, the permit was never freed,
 * `close()` never resolved, and Node's default `unhandledRejection` ended the process
 * (test/faults/poison-pill.test.ts runs that in a child process); a non-string message made
 * `retry` refuse with BAD_USER_INPUT, reported as `error`, the real error lost to "lease
 * expired".
 *
 * The lease is long and the Worker's reaper off, so nothing here is rescued by a reap.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type Job, Queue, Worker } from '../../src/lanes/index.js';
import { deliver, POISONS, type Poison, type PoisonKind } from '../fixtures/poison.js';
import { uniqueQueueName } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';

/** "Promptly": far below the 60 s lease, generous for a loaded 2-core machine. */
const PROMPT_MS = 5_000;
/** Ordinary jobs queued behind the poison pill in its group (limit 1). */
const BEHIND = 3;

/** `promise`, or a failure naming `what` if it takes longer than `ms`. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Poll `probe` until it is true, or fail naming `what` after `ms`. */
async function waitFor(what: string, probe: () => boolean, ms = PROMPT_MS): Promise<void> {
  const deadline = performance.now() + ms;
  while (!probe()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms: ${what}`);
    await sleep(5);
  }
}

describe('a Worker given poison pills', () => {
  const redis = useTestRedis();
  const workers: Worker[] = [];

  afterEach(async () => {
    // Bounded: a worker wedged by a pill must fail its test, not hang the file.
    await within(
      PROMPT_MS,
      'closing the workers',
      Promise.all(workers.splice(0).map((w) => w.close({ timeoutMs: 1_000 }))),
    ).catch(() => undefined);
  });

  it.each(Object.keys(POISONS) as PoisonKind[])(
    '%s: recorded as readable text, the permit freed, `failed` not `error`, close() resolves',
    async (kind) => {
      const q = new Queue(redis.client(), uniqueQueueName('poison'));
      await q.setLimit('g', 1);
      const pill = await q.enqueue('g', { poison: kind }, { maxAttempts: 2 });
      for (let i = 0; i < BEHIND; i++) await q.enqueue('g', { i });

      const failed: Array<{ job: Job; error: Error }> = [];
      const completed: string[] = [];
      const errors: unknown[] = [];
      const worker = new Worker(
        q,
        (job) => {
          const { poison } = (job.payload ?? {}) as { poison?: PoisonKind };
          return poison === undefined ? Promise.resolve() : (deliver(poison) as Promise<unknown>);
        },
        { concurrency: 2, leaseMs: 60_000, parkTimeoutMs: 100, reaper: false },
      );
      workers.push(worker);
      worker.on('failed', (job, error) => failed.push({ job, error }));
      worker.on('completed', (job) => completed.push(job.id));
      worker.on('error', (error) => errors.push(error));

      await waitFor(
        `two failed attempts and ${BEHIND} completions`,
        () => failed.length === 2 && completed.length === BEHIND,
      );
      const { text } = POISONS[kind] as Poison;
      // Retried once (back to the front of its lane), then dead at maxAttempts.
      expect(failed.map((f) => [f.job.id, f.job.state])).toEqual([
        [pill.id, 'PENDING'],
        [pill.id, 'DEAD'],
      ]);
      for (const { error } of failed) {
        expect(error).toBeInstanceOf(Error);
        // The event's error reads cleanly: its message is the recorded text (or, for an Error
        // that reads cleanly itself, that Error, whose message the record cuts).
        expect(text.startsWith(error.message.slice(0, 100))).toBe(true);
        expect(typeof error.stack).toBe('string');
      }
      expect(errors).toEqual([]);

      const dead = await q.job(pill.id);
      expect(dead?.state).toBe('DEAD');
      expect(dead?.lastError).toBe(text);
      expect(dead?.errors?.map((e) => e.message)).toEqual([text, text]);
      const stacks = dead?.errors?.map((e) => e.stack) ?? [];
      if ((POISONS[kind] as Poison).stack) {
        for (const stack of stacks) expect(stack?.length).toBeGreaterThan(0);
      } else {
        expect(stacks).toEqual([null, null]);
      }
      expect((await q.audit()).findings).toEqual([]);
      expect(await q.redis.hgetall(q.keys.gactive)).toEqual({});
      await within(PROMPT_MS, 'close()', worker.close());
    },
  );

  it("an Error that reads cleanly is the 'failed' event's error itself, its stack recorded", async () => {
    const q = new Queue(redis.client(), uniqueQueueName('poison'));
    const job = await q.enqueue('g', {}, { maxAttempts: 1 });
    const thrown = new TypeError('plain failure');
    const worker = new Worker(q, () => Promise.reject(thrown), { reaper: false });
    workers.push(worker);
    const [, error] = await within(
      PROMPT_MS,
      'failed',
      new Promise<[Job, Error]>((resolve) => worker.once('failed', (...args) => resolve(args))),
    );
    expect(error).toBe(thrown);
    const dead = await q.job(job.id);
    expect(dead?.lastError).toBe('plain failure');
    expect(dead?.errors?.[0]?.stack).toBe(thrown.stack);
  });

  it('a thrown string is its own text, with no stack (the worker’s frames are not its)', async () => {
    const q = new Queue(redis.client(), uniqueQueueName('poison'));
    const job = await q.enqueue('g', {}, { maxAttempts: 1 });
    const worker = new Worker(q, () => Promise.reject('out of cheese'), { reaper: false });
    workers.push(worker);
    const [, error] = await within(
      PROMPT_MS,
      'failed',
      new Promise<[Job, Error]>((resolve) => worker.once('failed', (...args) => resolve(args))),
    );
    expect(error.message).toBe('out of cheese');
    const dead = await q.job(job.id);
    expect(dead?.lastError).toBe('out of cheese');
    expect(dead?.errors?.[0]?.stack).toBeNull();
  });
});
