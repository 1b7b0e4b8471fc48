/**
 * The backoff rule of includes/requeueJob.lua (DESIGN.md §3, backoff), exactly: the wait of a
 * failed attempt, through retry-12.lua and reap-12.lua called with a chosen random number `r`
 * (the engine passes Math.random()), measured as runAt − the script's now. The script's now is
 * not returned, so each case reads the Redis clock around the call: the wait is bounded by
 * runAt − t1 ≤ wait ≤ runAt − t0, and the cases pick numbers that the bounds tell apart.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type BackoffPolicyInput, type Job, Limits, type Queue } from '../../src/lanes/index.js';
import { decodeJob } from '../../src/lanes/queue/jobs.js';
import { Defaults } from '../../src/lanes/queue/queue.js';
import { Connection } from '../../src/lanes/redis/connection.js';
import { Commands } from '../../src/lanes/scripts/commands.js';
import { LUA_DIR } from '../../src/lanes/scripts/lua.js';
import { redisNow, untilRedisTimePasses, useEngine } from '../support/lanes.js';

const engine = useEngine();

interface Measured {
  job: Job;
  /** The wait's bounds (ms) from the Redis clock read before and after the script. */
  min: number;
  max: number;
}

/** A job with `policy` claimed `attempt` times and failed each time; the last retry measured. */
async function failAt(
  policy: BackoffPolicyInput,
  attempt: number,
  r: number,
  delayMs?: number,
): Promise<Measured> {
  const q = engine.queue();
  const commands = new Commands(Connection.of(q.redis), q.keys);
  const job = await q.enqueue('g', null, { backoff: policy, maxAttempts: 100 });
  for (let i = 1; i <= attempt; i++) {
    const claimed = (await q.claim()) as Job;
    expect(claimed.id).toBe(job.id);
    if (i === attempt) {
      const t0 = await redisNow(q.redis);
      const reply = await commands.retry({
        id: job.id,
        token: claimed.token as string,
        error: 'x',
        stack: '',
        delayMs,
        r,
      });
      const t1 = await redisNow(q.redis);
      const [id, fields] = reply as [string, string[]];
      const after = decodeJob(q.name, id, fields);
      const runAt = after.runAt ?? t1;
      return { job: after, min: runAt - t1, max: runAt - t0 };
    }
    // earlier attempts back at once: an explicit 0 overrides the policy
    await q.retry(claimed.id, claimed.token as string, { delayMs: 0 });
  }
  throw new Error('unreachable');
}

function expectWait(m: Measured, wait: number): void {
  expect(m.job.state).toBe(wait > 0 ? 'DELAYED' : 'PENDING');
  if (wait === 0) return;
  expect(wait).toBeGreaterThanOrEqual(m.min);
  expect(wait).toBeLessThanOrEqual(m.max);
}

describe('the Lua constants agree with the engine’s', () => {
  const constant = (file: string, name: string) =>
    Number(
      new RegExp(`^local ${name} = (\\d+)$`, 'm').exec(
        readFileSync(`${LUA_DIR}${file}`, 'utf8'),
      )?.[1],
    );

  it('errors kept (requeueJob.lua), and the longest delay (includes/bounds.lua, for requeueJob.lua and enqueueJob.lua)', () => {
    expect(constant('includes/requeueJob.lua', 'ERRORS_KEPT')).toBe(Defaults.errorsKept);
    expect(constant('includes/bounds.lua', 'MAX_DELAY_MS')).toBe(Limits.maxDelayMs);
  });
});

describe('the wait of a failed attempt (includes/requeueJob.lua)', () => {
  it('FIXED waits delayMs every time', async () => {
    for (const attempt of [1, 2, 5]) {
      expectWait(await failAt({ type: 'FIXED', delayMs: 7_000 }, attempt, 0.3), 7_000);
    }
  });

  it('EXPONENTIAL waits delayMs × 2^(attempt − 1), capped at maxDelayMs', async () => {
    const policy: BackoffPolicyInput = { type: 'EXPONENTIAL', delayMs: 1_000, maxDelayMs: 6_000 };
    expectWait(await failAt(policy, 1, 0), 1_000);
    expectWait(await failAt(policy, 2, 0), 2_000);
    expectWait(await failAt(policy, 3, 0), 4_000);
    expectWait(await failAt(policy, 4, 0), 6_000);
    expectWait(await failAt(policy, 9, 0), 6_000);
  });

  it('EXPONENTIAL without a cap stops at 30 days, however many attempts (no overflow)', async () => {
    const policy: BackoffPolicyInput = { type: 'EXPONENTIAL', delayMs: Limits.maxDelayMs };
    expectWait(await failAt(policy, 3, 0), Limits.maxDelayMs);
    const small: BackoffPolicyInput = { type: 'EXPONENTIAL', delayMs: 1 };
    expectWait(await failAt(small, 40, 0), Limits.maxDelayMs);
  });

  it('jitter j cuts the wait to wait × (1 − j × r), floored to whole ms', async () => {
    const policy: BackoffPolicyInput = { type: 'FIXED', delayMs: 10_000, jitter: 0.5 };
    expectWait(await failAt(policy, 1, 0), 10_000);
    expectWait(await failAt(policy, 1, 0.5), 7_500);
    expectWait(await failAt(policy, 1, 0.999), Math.floor(10_000 * (1 - 0.5 * 0.999)));
    const exp: BackoffPolicyInput = {
      type: 'EXPONENTIAL',
      delayMs: 1_000,
      maxDelayMs: 3_000,
      jitter: 1,
    };
    expectWait(await failAt(exp, 3, 0.25), 2_250);
  });

  it('delayMs 0 or a jitter that cuts it all means back to the lane at once', async () => {
    expectWait(await failAt({ type: 'FIXED', delayMs: 0 }, 1, 0.5), 0);
    expectWait(await failAt({ type: 'FIXED', delayMs: 1, jitter: 1 }, 1, 0.9), 0);
  });

  it('an explicit delay overrides the policy, without jitter; 0 is at once', async () => {
    const policy: BackoffPolicyInput = { type: 'FIXED', delayMs: 60_000, jitter: 1 };
    expectWait(await failAt(policy, 1, 0.9, 2_000), 2_000);
    expectWait(await failAt(policy, 1, 0.9, 0), 0);
    // and gives a delay to a job without a policy
    const q = engine.queue();
    await q.enqueue('g');
    const claimed = (await q.claim()) as Job;
    const t0 = await redisNow(q.redis);
    const retried = await q.retry(claimed.id, claimed.token as string, { delayMs: 3_000 });
    expect(retried.state).toBe('DELAYED');
    expect(retried.runAt).toBeGreaterThanOrEqual(t0 + 3_000);
  });

  it('a policy field another writer spoiled counts as no policy (back at once)', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g', null, { backoff: { type: 'FIXED', delayMs: 5_000 } });
    await q.redis.hset(q.keys.job(job.id), 'backoffDelayMs', '1e3');
    const claimed = (await q.claim()) as Job;
    expect((await q.retry(claimed.id, claimed.token as string, 'x')).state).toBe('PENDING');
  });
});

describe('reap applies the policy with one r per call, spread per job', () => {
  async function expiredJobs(q: Queue, n: number, policy: BackoffPolicyInput): Promise<Job[]> {
    for (let i = 0; i < n; i++) await q.enqueue(`g${i}`, null, { backoff: policy });
    const jobs: Job[] = [];
    for (let i = 0; i < n; i++) jobs.push((await q.claim({ leaseMs: 1 })) as Job);
    await untilRedisTimePasses(q.redis, Math.max(...jobs.map((j) => j.leaseUntil as number)));
    return jobs;
  }

  it('the i-th job reaped waits wait × (1 − j × frac(r + i × 0.6180339887))', async () => {
    const q = engine.queue();
    const policy: BackoffPolicyInput = { type: 'FIXED', delayMs: 100_000, jitter: 1 };
    const jobs = await expiredJobs(q, 4, policy);
    const commands = new Commands(Connection.of(q.redis), q.keys);
    const t0 = await redisNow(q.redis);
    const [reaped] = await commands.reap({ batch: 10, r: 0.1 });
    const t1 = await redisNow(q.redis);
    expect(reaped).toBe(4);
    // reaped in lease order (the deadline, then the id)
    const order = await q.redis.zrange(q.keys.delayed, 0, -1, 'WITHSCORES');
    const runAts = new Map<string, number>();
    for (let i = 0; i < order.length; i += 2) runAts.set(order[i] as string, Number(order[i + 1]));
    const byLease = [...jobs].sort(
      (a, b) => (a.leaseUntil as number) - (b.leaseUntil as number) || Number(a.id) - Number(b.id),
    );
    byLease.forEach((job, i) => {
      const spread = 0.1 + i * 0.6180339887;
      const wait = Math.floor(100_000 * (1 - (spread - Math.floor(spread))));
      const runAt = runAts.get(job.id) as number;
      expect(runAt - t1).toBeLessThanOrEqual(wait);
      expect(runAt - t0).toBeGreaterThanOrEqual(wait);
    });
  });
});
