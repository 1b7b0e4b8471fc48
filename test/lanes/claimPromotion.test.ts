/**
 * The claim path's promotion (DESIGN.md §3, claim): claim and completeAndClaim first
 * promote the delayed jobs that are due (up to `Defaults.promoteBatch`), each back to its lane at
 * its FIFO place, re-ringing its group with a wake; with nothing claimed on a running queue they
 * answer `nextRunAt`, the earliest run-at time left in `delayed`, and a Worker parks no longer
 * than until then. The cost stays flat however many jobs wait.
 *
 * Delayed jobs are written by the key layout (test/support/delayed.ts), as a delayed enqueue
 * leaves them.
 */
import { describe, expect, it } from 'vitest';
import { Defaults, type Job, type Queue, Worker } from '../../src/lanes/index.js';
import { commandCountDuring, commandsDuring } from '../support/commandStats.js';
import { putDelayed } from '../support/delayed.js';
import { rawState, redisNow, statsOf, useEngine } from '../support/lanes.js';

const engine = useEngine();

/** The raw reply of `claim-1.lua` for one claim (`Queue.claim` answers only the job). */
async function claimReply(q: Queue, token = 't'): Promise<unknown[]> {
  const k = q.keys;
  const run = (q.redis as unknown as Record<string, (...args: unknown[]) => Promise<unknown[]>>)
    .ringmaster_claim as (...args: unknown[]) => Promise<unknown[]>;
  return run.call(
    q.redis,
    // Its keys are built from the base: only `settings` is declared, beside the slot guard.
    k.settings,
    k.guard,
    k.base,
    30_000,
    token,
    3,
    Defaults.promoteBatch,
  );
}

describe('claim promotes due delayed jobs', () => {
  it('past a batch of due jobs whose group cannot be judged (active count not countable)', async () => {
    const q = engine.queue();
    const now = await redisNow(q.redis);
    await q.setLimit('bad', 5);
    // The earliest promoteBatch + 1 due jobs belong to a group whose count is damaged; a job of
    // another group is due after them. Left delayed, they would hold the head of `delayed` and
    // no other job would ever be promoted until a repair.
    await putDelayed(q, 'bad', now - 10, Defaults.promoteBatch + 1);
    const [ok] = await putDelayed(q, 'ok', now - 1);
    await q.redis.hset(q.keys.gactive, 'bad', '99999999999999999999');
    expect(await q.claim()).toBeNull();
    const claimed = (await q.claim()) as Job;
    expect(claimed.id).toBe(ok);
    // The damaged group's jobs are in its lane; it is not served until a repair.
    expect(await q.redis.zcard(q.keys.lane('bad'))).toBe(Defaults.promoteBatch + 1);
    expect(await q.redis.zcard(q.keys.delayed)).toBe(0);
    expect(await q.redis.lrange(q.keys.ring, 0, -1)).toEqual([]);
    await q.repair();
    expect(await q.redis.lrange(q.keys.ring, 0, -1)).toEqual(['bad']);
  });

  it('a due job goes back to its lane at its FIFO place, and is claimed in that place', async () => {
    const q = engine.queue();
    const now = await redisNow(q.redis);
    // id 1 delayed (due), ids 2 and 3 pending: FIFO by id puts 1 first once promoted.
    const [d] = await putDelayed(q, 'g', now - 1);
    const a = await q.enqueue('g', 'a');
    const b = await q.enqueue('g', 'b');
    expect(await statsOf(q)).toMatchObject({ delayed: 1, pending: 2 });

    const first = (await q.claim()) as Job;
    expect(first.id).toBe(d);
    expect(first).toMatchObject({ state: 'ACTIVE', attempts: 1, runAt: null });
    expect(await q.redis.hmget(q.keys.job(d as string), 'state', 'runAt')).toEqual([
      'active',
      null,
    ]);
    expect(await q.redis.zcard(q.keys.delayed)).toBe(0);
    expect(await q.redis.zcard(q.keys.groupDelayed('g'))).toBe(0);
    expect(await statsOf(q)).toMatchObject({ delayed: 0, pending: 2, active: 1 });
    expect((await q.claim())?.id).toBe(a.id);
    expect((await q.claim())?.id).toBe(b.id);
  });

  it('a group whose only work was delayed is re-ringed with a wake, and served by the same claim', async () => {
    const q = engine.queue();
    const now = await redisNow(q.redis);
    const [d] = await putDelayed(q, 'h', now - 5);
    expect(await q.ring()).toEqual([]);
    expect((await rawState(q)).wake).toBe(0);
    const job = await q.claim();
    expect(job?.id).toBe(d);
    const s = await rawState(q);
    expect(s.wake).toBe(1);
    expect(s.ring).toEqual([]); // served, and its lane is empty again
    expect(s.gactive).toEqual({ h: '1' });
    expect((await q.audit()).findings).toEqual([]);
  });

  it('a job not yet due stays delayed; completeAndClaim answers the earliest runAt as nextRunAt', async () => {
    const q = engine.queue();
    const now = await redisNow(q.redis);
    await putDelayed(q, 'g', now + 60_000);
    const [soon] = await putDelayed(q, 'h', now + 30_000);
    expect(await q.claim()).toBeNull();
    const none = await q.completeAndClaim([], { claim: 2 });
    expect(none.claimed).toEqual([]);
    expect(none.nextRunAt).toBe(now + 30_000);
    // The claim script answers it too (Queue.claim answers only the job).
    const reply = await claimReply(q);
    expect(reply).toEqual([null, null, [], now + 30_000]);
    expect(await q.redis.zscore(q.keys.delayed, soon as string)).toBe(String(now + 30_000));
    expect(await statsOf(q)).toMatchObject({ delayed: 2, pending: 0, claimed: 0 });
  });

  it('nextRunAt only when the claims ran out: null when every claim was served or nothing waits', async () => {
    const q = engine.queue();
    const now = await redisNow(q.redis);
    await q.enqueue('g', 1);
    await q.enqueue('g', 2);
    expect((await q.completeAndClaim([], { claim: 1 })).nextRunAt).toBeNull();
    // One job left, two asked for, nothing delayed.
    expect(await q.completeAndClaim([], { claim: 2 })).toMatchObject({ nextRunAt: null });
    await putDelayed(q, 'g', now + 10_000);
    await q.enqueue('g', 3);
    const partial = await q.completeAndClaim([], { claim: 2 });
    expect(partial.claimed).toHaveLength(1);
    expect(partial.nextRunAt).toBe(now + 10_000);
    // A call that asks for no claims answers none (and promotes nothing).
    expect((await q.completeAndClaim([], { claim: 0 })).nextRunAt).toBeNull();
  });

  it('promotes at most Defaults.promoteBatch per call, earliest first; the rest on later calls', async () => {
    const q = engine.queue();
    const now = await redisNow(q.redis);
    const early = await putDelayed(q, 'g', now - 2_000, 150);
    const late = await putDelayed(q, 'g', now - 1_000, 100);
    const job = await q.claim();
    expect(job?.id).toBe(early[0]);
    expect(Defaults.promoteBatch).toBe(100);
    expect(await q.redis.zcard(q.keys.delayed)).toBe(150);
    expect(await q.redis.zcard(q.keys.lane('g'))).toBe(99);
    // Earliest first: the 100 promoted are all early ones, every late one still waits.
    const waiting = await q.redis.zrange(q.keys.delayed, 0, -1);
    expect(waiting.filter((id) => early.includes(id))).toHaveLength(50);
    expect(waiting.filter((id) => late.includes(id))).toHaveLength(100);
    expect(await statsOf(q)).toMatchObject({ delayed: 150, pending: 99, active: 1 });
    await q.claim();
    await q.claim();
    expect(await q.redis.zcard(q.keys.delayed)).toBe(0);
    expect(await q.redis.zrange(q.keys.lane('g'), -1, -1)).toEqual([late.at(-1)]);
    expect(await statsOf(q)).toMatchObject({ delayed: 0, pending: 247, active: 3 });
    expect((await q.audit()).findings).toEqual([]);
  });

  it('completeAndClaim promotes after its completions, before its claims', async () => {
    const q = engine.queue();
    await q.setLimit('g', 1);
    await q.enqueue('g', 'first');
    const held = (await q.claim()) as Job;
    const now = await redisNow(q.redis);
    const [d] = await putDelayed(q, 'g', now - 1);
    const result = await q.completeAndClaim([{ id: held.id, token: held.token as string }], {
      claim: 1,
    });
    expect(result.refused).toEqual([null]);
    expect(result.claimed.map((j) => j.id)).toEqual([d]);
    expect(result.nextRunAt).toBeNull();
    expect((await q.audit()).findings).toEqual([]);
  });
});

describe('flat cost', () => {
  // Redis-side command counts (INFO commandstats counts the commands a script runs): a server
  // of this file's own, so nothing else runs on it meanwhile.
  // With one delayed job, not none: a queue with no delayed job (nor rate, weight or watched
  // job) skips the delayed reads altogether (includes/quietQueue.lua), so it runs fewer.
  it('with 100,000 delayed jobs not yet due, a claim runs as many Redis commands as with one', async (context) => {
    // A shared server (REDIS_URL) counts other files' commands too.
    if (engine.handle.redis.mode === 'external') context.skip();
    const admin = engine.client();
    const commandsOf = (call: () => Promise<unknown>) => commandCountDuring(admin, call);
    const build = async (delayed: number) => {
      const q = engine.queue();
      for (let i = 0; i < 4; i++) await q.enqueue('g', i);
      const now = await redisNow(q.redis);
      for (let n = 0; n < delayed; n += 10_000) {
        await putDelayed(q, 'h', now + 3_600_000, Math.min(10_000, delayed - n));
      }
      return q;
    };
    const empty = await build(1);
    const full = await build(100_000);
    expect(await full.redis.zcard(full.keys.delayed)).toBe(100_000);
    for (const q of [empty, full]) await q.claim(); // scripts loaded, registration done
    const counts = async (q: Queue) => [
      await commandsOf(() => q.claim()),
      await commandsOf(() => q.completeAndClaim([], { claim: 2 })),
      // nothing left to claim: nextRunAt read too
      await commandsOf(() => q.completeAndClaim([], { claim: 2 })),
    ];
    const withOne = await counts(empty);
    const withMany = await counts(full);
    expect(withMany).toEqual(withOne);
    expect(withOne[0]).toBeGreaterThan(0);
    admin.disconnect();
  }, 60_000);
});

describe('the optional reads: each feature is read only while the queue has its keys', () => {
  it('with a job delayed for later and nothing else, a claim reads neither the delayed jobs (not due) nor the rate keys, and asks the weights and watches only once there is a weight', async (context) => {
    // A shared server (REDIS_URL) counts other files' commands too.
    if (engine.handle.redis.mode === 'external') context.skip();
    const admin = engine.client();
    const q = engine.queue();
    for (let i = 0; i < 6; i++) await q.enqueue('g', i);
    await q.enqueue('h', 'later', { delayMs: 3_600_000 });
    await q.claim(); // scripts loaded
    const delayedOnly = await commandsDuring(admin, () => q.claim());
    // The probe's EXISTS, the one that tells which of its keys are there
    // (includes/quietQueue.lua) and the served lane's (includes/claimJobs.lua, settleServed);
    // nothing of `delayed`: its "next due at" (the first claim wrote it) is an hour ahead
    // (includes/nextDue.lua); no `ratelimited` (ZMSCORE, ZRANGEBYSCORE), no `grate`, no
    // `gweight`, no `watched`.
    expect(delayedOnly.exists).toBe(3);
    expect(delayedOnly.zrangebyscore).toBeUndefined();
    expect(delayedOnly.zrange).toBeUndefined();
    expect(delayedOnly.zmscore).toBeUndefined();
    await q.setWeight('g', 2);
    const weighted = await commandsDuring(admin, () => q.claim());
    // A weight too: the weights are read (HMGET `gweight`, and the turns of the weighted one)
    // and whether a job is watched is asked (EXISTS `watched`); a weighted group's lane is
    // asked with a ZCARD instead of the EXISTS; the rate keys still are not read.
    expect(weighted.exists).toBe(3);
    expect(weighted.zcard).toBe(1);
    expect(weighted.hmget).toBe((delayedOnly.hmget as number) + 2);
    expect(weighted.zmscore).toBeUndefined();
    expect((await q.audit()).findings).toEqual([]);
    admin.disconnect();
  });
});

describe('the Worker parks no longer than until the next delayed job is due', () => {
  it('a delayed job is run about when it falls due, not at the park timeout', async () => {
    const q = engine.queue();
    const runs: { id: string; at: number }[] = [];
    const worker = new Worker(
      q,
      async (job) => {
        runs.push({ id: job.id, at: await redisNow(q.redis) });
      },
      { parkTimeoutMs: 20_000, reaper: false },
    );
    try {
      // The worker parks on an empty queue (no nextRunAt: nothing waits).
      await new Promise((resolve) => setTimeout(resolve, 100));
      const now = await redisNow(q.redis);
      const [d] = await putDelayed(q, 'g', now + 400);
      // Nothing re-rings or wakes: an enqueue to another group makes the worker claim once, so
      // it learns nextRunAt; then it parks until then (no reaper runs to promote it).
      await q.enqueue('other', 'x');
      const started = Date.now();
      while (runs.length < 2 && Date.now() - started < 5_000) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const run = runs.find((r) => r.id === d);
      expect(run, 'the delayed job ran').toBeDefined();
      expect(run?.at).toBeGreaterThanOrEqual(now + 400);
      // Well before the 20 s park timeout: by its run-at time plus a claim's latency.
      expect(run?.at).toBeLessThan(now + 400 + 1_000);
    } finally {
      await worker.close();
    }
  });
});
