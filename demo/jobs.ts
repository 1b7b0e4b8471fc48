/**
 * The demo's jobs (issue 16: every view of the console has something to show): what its
 * producer enqueues for the tenants and how its workers process them. Kept apart from
 * `demo/index.ts`, which starts a server, so a test can run the same producer and processor
 * against a Redis of its own (test/server/demo.jobs.test.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Job, Queue } from '../src/lanes/index.js';

/** The retry policy of the jobs that may fail (DESIGN.md §3, backoff): 3 attempts, 0.5 s, 1 s. */
export const RETRY = {
  maxAttempts: 3,
  backoff: { type: 'EXPONENTIAL', delayMs: 500, maxDelayMs: 10_000 },
} as const;

/** Why a demo job fails, as a real processor's errors read. */
export const FAILURES = [
  'payment gateway timed out after 5000 ms',
  'upstream answered 503 Service Unavailable',
  'invalid payload: customer id is missing',
];

/** The options of each demo Worker (the demo runs two). */
export const WORKER_OPTIONS = { concurrency: 12, leaseMs: 10_000 } as const;

/** A demo job's payload. */
export interface DemoPayload {
  /** How long the job works (ms). */
  ms: number;
  /** Fails on every attempt (ends dead), or only on its first (succeeds on a retry). */
  fail?: 'always' | 'once' | false;
  /** What a failure says. */
  why?: string;
  /** Set on the scheduled jobs. */
  report?: 'scheduled';
}

/** An integer in [min, max) from `rand` (a source of numbers in [0, 1), Math.random's shape). */
export const random = (min: number, max: number, rand: () => number = Math.random): number =>
  min + Math.floor(rand() * (max - min));

/** A demo job: sleeps `ms`; fails as its payload says, with a real Error (message and stack). */
export async function processor(job: Job): Promise<void> {
  const { ms, fail, why } = job.payload as DemoPayload;
  await sleep(ms);
  if (fail === 'always' || (fail === 'once' && job.attempts <= 1)) {
    throw new Error(why ?? 'simulated failure');
  }
}

/** One tenant job: mostly fine (20–600 ms), ~2 % failing for good, ~3 % failing once. */
export function tenantJob(rand: () => number = Math.random): {
  payload: DemoPayload;
  options: typeof RETRY | undefined;
} {
  const roll = rand();
  const ms = random(20, 600, rand);
  if (roll >= 0.05) return { payload: { ms }, options: undefined };
  const fail = roll < 0.02 ? 'always' : 'once';
  const why = FAILURES[random(0, FAILURES.length, rand)] ?? 'simulated failure';
  return { payload: { ms, fail, why }, options: RETRY };
}

/**
 * One round of the demo's producer: each of `tenants` gets 0–7 jobs, the first ones more
 * (skew), and, half the time, one tenant a scheduled report due in 5–60 s. Returns the ids
 * enqueued with the payload of each.
 */
export async function produceRound(
  queue: Queue,
  tenants: readonly string[],
  rand: () => number = Math.random,
): Promise<Map<string, DemoPayload>> {
  const made = new Map<string, DemoPayload>();
  for (const [i, tenant] of tenants.entries()) {
    const n = Math.max(0, random(-2, 8 - Math.floor(i / 6), rand));
    for (let j = 0; j < n; j++) {
      const { payload, options } = tenantJob(rand);
      made.set((await queue.enqueue(tenant, payload, options)).id, payload);
    }
  }
  if (rand() < 0.5) {
    const tenant = tenants[random(0, tenants.length, rand)] as string;
    const payload: DemoPayload = { ms: random(50, 300, rand), report: 'scheduled' };
    const job = await queue.enqueue(tenant, payload, { delayMs: random(5_000, 60_000, rand) });
    made.set(job.id, payload);
  }
  return made;
}
