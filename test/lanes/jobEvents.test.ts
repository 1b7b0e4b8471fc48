/**
 * The events of watched jobs (DESIGN.md §4.4; includes/jobEvents.lua): a job
 * registered in `P:{Q}:watched` (`Queue.watchJobs`) gets an entry in `P:{Q}:job:<id>:events` at
 * every change of its state, with the fields of that moment, bounded and expiring. A job nobody
 * watches costs the scripts that move it one EXISTS per call, never per job: the Redis-side
 * command counts of claim, complete, completeAndClaim and retry are their counts before events
 * existed plus that one.
 */
import { describe, expect, it, vi } from 'vitest';
import { ErrorCode, type Queue } from '../../src/lanes/index.js';
import { queueSnapshot, redisNow, untilRedisTimePasses, useEngine } from '../support/lanes.js';

const engine = useEngine();

interface Entry {
  seq: string;
  at: number;
  gone?: boolean;
  state?: string;
  attempts?: string;
  claimedAt?: string;
  leaseUntil?: string;
  runAt?: string;
  finishedAt?: string;
  lastError?: string;
}

async function entries(q: Queue, id: string): Promise<Entry[]> {
  return (await q.redis.lrange(q.keys.jobEvents(id), 0, -1)).map((e) => JSON.parse(e) as Entry);
}

async function claimed(q: Queue): Promise<{ id: string; token: string }> {
  const job = await q.claim();
  if (!job?.token) throw new Error('nothing claimed');
  return { id: job.id, token: job.token };
}

describe('a watched job', () => {
  it('gets an entry at each state change, with the fields of that moment, in seq order', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g', { n: 1 }, { maxAttempts: 3 });
    await q.watchJobs([job.id], 60_000);
    const first = await claimed(q);
    await q.retry(first.id, first.token, { error: 'boom', delayMs: 60_000 });
    await q.promote(job.id);
    const second = await claimed(q);
    await q.complete(second.id, second.token);
    const list = await entries(q, job.id);
    expect(list.map((e) => [e.state, e.attempts, e.lastError ?? null])).toEqual([
      ['active', '1', null],
      ['delayed', '1', 'boom'],
      ['pending', '1', 'boom'],
      ['active', '2', 'boom'],
      ['completed', '2', 'boom'],
    ]);
    expect(list[0]?.leaseUntil).toEqual(expect.any(String));
    expect(list[1]?.runAt).toEqual(expect.any(String));
    expect(list[2]?.runAt).toBeUndefined();
    expect(list[4]?.finishedAt).toEqual(expect.any(String));
    expect(list[4]?.leaseUntil).toBeUndefined();
    const seqs = list.map((e) => Number(e.seq));
    expect(seqs.slice(1)).toEqual(seqs.slice(0, -1).map((s) => s + 1));
    // The first seq is from the Redis clock (ms × 1000): past every seq of an expired list.
    expect(seqs[0]).toBeGreaterThan((await redisNow(q.redis)) * 1000 - 60_000_000);
    // The list expires by itself, 10 minutes after its last entry.
    const ttl = await q.redis.pttl(q.keys.jobEvents(job.id));
    expect(ttl).toBeGreaterThan(590_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
  });

  it('promoted and claimed by one claim call: both changes, in order', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g', null, { delayMs: 1 });
    await q.watchJobs([job.id], 60_000);
    await untilRedisTimePasses(q.redis, job.runAt as number);
    expect((await claimed(q)).id).toBe(job.id);
    const list = await entries(q, job.id);
    expect(list.map((e) => e.state)).toEqual(['pending', 'active']);
    expect(Number(list[1]?.seq)).toBe(Number(list[0]?.seq) + 1);
  });

  it('dead, then requeued by an operator: DEAD, then PENDING with its attempts reset', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g', null, { maxAttempts: 1 });
    await q.watchJobs([job.id], 60_000);
    const c = await claimed(q);
    await q.retry(c.id, c.token, 'last');
    await q.requeueDead({ ids: [job.id] });
    expect((await entries(q, job.id)).map((e) => [e.state, e.attempts])).toEqual([
      ['active', '1'],
      ['dead', '1'],
      ['pending', '0'],
    ]);
  });

  it('completed without retention: its last entry is COMPLETED (the truth), not gone', async () => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 0 } });
    const done = await q.enqueue('g', null);
    await q.watchJobs([done.id], 60_000);
    const c = await claimed(q);
    const t0 = await redisNow(q.redis);
    await q.complete(c.id, c.token);
    const [active, completed] = await entries(q, done.id);
    expect(active).toMatchObject({ state: 'active', attempts: '1' });
    expect(completed).toMatchObject({
      state: 'completed',
      attempts: '1',
      claimedAt: active?.claimedAt,
    });
    expect(completed?.gone).toBeUndefined();
    expect(completed?.leaseUntil).toBeUndefined();
    expect(Number(completed?.finishedAt)).toBeGreaterThanOrEqual(t0);
    expect(await q.redis.exists(q.keys.job(done.id))).toBe(0);
  });

  it('removed by an operator: its last entry says gone', async () => {
    const q = engine.queue();
    const removed = await q.enqueue('g', null);
    await q.watchJobs([removed.id], 60_000);
    await q.removeJobs({ ids: [removed.id] });
    expect((await entries(q, removed.id)).map((e) => e.gone ?? e.state)).toEqual([true]);
  });

  it('keeps its newest 100 entries', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g', null, { maxAttempts: 100 });
    await q.watchJobs([job.id], 60_000);
    for (let i = 0; i < 55; i++) {
      const c = await claimed(q);
      await q.retry(c.id, c.token);
    }
    const list = await entries(q, job.id);
    expect(list).toHaveLength(100);
    expect(list.at(-1)).toMatchObject({ state: 'pending', attempts: '55' });
    expect(list[0]).toMatchObject({ state: 'active', attempts: '6' });
  });
});

describe('registrations', () => {
  it('only ever move later (ZADD GT): a shorter one does not shorten another server’s', async () => {
    const q = engine.queue();
    const until = await q.watchJobs(['7'], 60_000);
    expect(await q.watchJobs(['7'], 1_000)).toBeLessThan(until);
    expect(Number(await q.redis.zscore(q.keys.watched, '7'))).toBe(until);
  });

  it('past their time are ignored by the scripts and dropped by the reaper', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g', null);
    // Another id registered for longer keeps the key (it expires with its latest registration).
    await q.watchJobs(['999'], 60_000);
    const until = await q.watchJobs([job.id], 1);
    await untilRedisTimePasses(q.redis, until);
    await claimed(q);
    expect(await q.redis.exists(q.keys.jobEvents(job.id))).toBe(0);
    expect(await q.redis.zcard(q.keys.watched)).toBe(2);
    await q.reap();
    expect(await q.redis.zrange(q.keys.watched, 0, -1)).toEqual(['999']);
  });

  it('expire with their latest one: the key goes by itself, in a queue never registered', async () => {
    const q = engine.queue();
    await q.watchJobs(['5'], 100);
    const ttl = await q.redis.pttl(q.keys.watched);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(100);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await q.redis.exists(q.keys.watched)).toBe(0);
  });

  it('never shorten the key’s TTL: a shorter registration leaves a longer one’s', async () => {
    const q = engine.queue();
    await q.watchJobs(['5'], 60_000);
    await q.watchJobs(['6'], 100);
    expect(await q.redis.pttl(q.keys.watched)).toBeGreaterThan(59_000);
    // A key without a TTL (written before it had one) gets its latest registration's.
    await q.redis.persist(q.keys.watched);
    await q.watchJobs(['7'], 100);
    expect(await q.redis.pttl(q.keys.watched)).toBeGreaterThan(59_000);
    await q.watchJobs(['8'], 120_000);
    expect(await q.redis.pttl(q.keys.watched)).toBeGreaterThan(119_000);
  });

  it('refuse bad input with nothing written', async () => {
    const q = engine.queue();
    await q.enqueue('g', null);
    const before = await queueSnapshot(q);
    await expect(q.watchJobs([], 60_000)).rejects.toMatchObject({ code: ErrorCode.BAD_USER_INPUT });
    await expect(q.watchJobs(['1'], 0)).rejects.toMatchObject({ code: ErrorCode.BAD_USER_INPUT });
    await expect(q.watchJobs(['x'], 60_000)).rejects.toMatchObject({
      code: ErrorCode.JOB_NOT_FOUND,
    });
    expect(await queueSnapshot(q)).toEqual(before);
  });
});

describe('cost', () => {
  /**
   * Redis-side commands of the scripts one call runs, by name (INFO commandstats counts the
   * commands a script runs), the script call and this measurement's own left out.
   */
  async function commandsOf(
    q: Queue,
    call: () => Promise<unknown>,
  ): Promise<Record<string, number>> {
    const admin = engine.client();
    // Left out too: the epoch check (checkEpoch-5.lua) a write sends when the queue's last one
    // is a second old (src/lanes/redis/stateLoss.ts), so whether it falls in this window depends on
    // timing. One that comes due here is held until the counts are read, then sent.
    const commands = (q as unknown as { commands: { checkEpoch: (p: never) => Promise<unknown> } })
      .commands;
    const checkEpoch = commands.checkEpoch.bind(commands);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const spy = vi
      .spyOn(commands, 'checkEpoch')
      .mockImplementation((p) => held.then(() => checkEpoch(p)));
    await admin.config('RESETSTAT');
    try {
      await call();
    } finally {
      spy.mockRestore();
    }
    const counts: Record<string, number> = {};
    for (const line of (await admin.info('commandstats')).split('\n')) {
      const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line);
      if (m && !/^(info|config|evalsha|eval|fcall|function)\b/.test(m[1] as string)) {
        counts[m[1] as string] = Number(m[2]);
      }
    }
    release();
    admin.disconnect();
    return counts;
  }

  const total = (counts: Record<string, number>) =>
    Object.values(counts).reduce((sum, n) => sum + n, 0);

  /** claim, complete, completeAndClaim (2 completions, 2 claims), retry: each one call. */
  async function costs(q: Queue): Promise<Record<string, number>[]> {
    for (let i = 0; i < 10; i++) await q.enqueue(`g${i}`, { i });
    await q.claim(); // scripts loaded
    const a = await claimed(q);
    const b = await claimed(q);
    const out = [
      await commandsOf(q, () => q.claim()),
      await commandsOf(q, () => q.complete(a.id, a.token)),
    ];
    const c = await claimed(q);
    out.push(
      await commandsOf(q, () =>
        q.completeAndClaim(
          [
            { id: b.id, token: b.token },
            { id: c.id, token: c.token },
          ],
          { claim: 2 },
        ),
      ),
    );
    const d = await claimed(q);
    out.push(await commandsOf(q, () => q.retry(d.id, d.token)));
    return out;
  }

  it('unwatched: as before events existed, plus one EXISTS per call', async (context) => {
    // A shared server (REDIS_URL) counts other files' commands too.
    if (engine.handle.redis.mode === 'external') context.skip();
    const counts = await costs(engine.queue());
    const plusOne = BEFORE.map((c) => ({ ...c, exists: (c.exists ?? 0) + 1 }));
    // A claim asks whether the lanes it served are empty with one EXISTS per
    // pop of the ring (includes/claimJobs.lua, settleServed), not a ZCARD per claim: claim
    // 1 ZCARD -> 1 EXISTS, completeAndClaim's 2 claims 2 ZCARDs -> 1 EXISTS.
    // And a claim in a queue with nothing delayed, no rate, no weight and no watched job asks
    // so with its one EXISTS (includes/quietQueue.lua) and skips the reads that would find
    // nothing: the due delayed jobs and reopened windows (2 ZRANGEBYSCORE), the heads' rates
    // and weights (2 HMGET) and rate-limited flags (ZMSCORE).
    const quiet = { zrangebyscore: -2, hmget: -2, zmscore: -1 };
    // Each call that changes the ring (claim and completeAndClaim pop it, retry re-rings its
    // group) asks once whether a feed watches it: the ring log's EXISTS of P:{Q}:ringwatched
    // (includes/ringLog.lua), one per call; the claims ask it in their probe's EXISTS, which
    // answers both when it counts 0. A claim that empties lanes drops their `heads` entries in
    // one ZREM (includes/claimJobs.lua; DESIGN.md §3, "Oldest pending").
    const ringLog = { exists: 1 };
    const emptied = { zrem: 1 };
    // The queue's cap (DESIGN.md §3, "The queue's cap and reserves"): claim reads it in the
    // HMGET of settings that was its HGET of `paused`; a retry asks whether a claim was held
    // back by it (HGET settings.capped) to wake a worker.
    const capRead = { hget: -1, hmget: 1 };
    const capWake = { hget: 1 };
    // The throughput history (DESIGN.md §3, "Throughput history"): every call that counts an
    // event reads its minute's slot and writes it back, once per call (includes/throughput.lua).
    const history = { hget: 1, hset: 1 };
    // The group rankings (DESIGN.md §3, "Group rankings"): a claim rewrites its served groups'
    // entries of `gactiverank` (ZADD) and `gpending` (here emptied: ZREM; else ZMSCORE + ZADD), a
    // completion drops its group's `gactiverank` entry at 0 (ZREM), and a retry gives its lane's
    // job back to `gpending` (ZINCRBY) as its active count drops to 0 (ZREM); its group joins
    // `gpending` again, so it asks the ranking's encoding (OBJECT ENCODING, and ZCARD while a
    // listpack: includes/indexedEncoding.lua, indexRanking).
    const ranks = {
      claim: { zadd: 1, zrem: 1 },
      complete: { zrem: 1 },
      completeAndClaim: { zadd: 1, zmscore: 1, zrem: 2 },
      retry: { zincrby: 1, zrem: 1, 'object|encoding': 1, zcard: 1 },
    };
    // A completion reads its job's group with its token (HMGET token group; DESIGN.md §2
    // `leases`), not from `leases`; complete releases the permit as completeAndClaim does
    // (includes/releasePermits.lua): the group's limit and count in two HMGETs, its pause flag
    // and lane only when the release takes it below its limit.
    const completion = {
      complete: { hget: -5, hmget: 3, sismember: -2, zcard: -2 },
      completeAndClaim: { hget: -2, hmget: 1 },
    };
    // A claim of one job reads its group's limit, count and pause and its payload each by
    // itself (HGET, SISMEMBER: includes/claimJobs.lua readStates, includes/payloads.lua
    // fillPayloads), not in a list read that Lua gets as a table.
    const oneJob = { hmget: -3, hget: 3, smismember: -1, sismember: 1 };
    const sum = (...parts: Record<string, number>[]) => {
      const out: Record<string, number> = {};
      for (const part of parts) {
        for (const [name, n] of Object.entries(part)) out[name] = (out[name] ?? 0) + n;
      }
      return out;
    };
    const cuts: Record<string, number>[] = [
      sum({ zcard: -1, exists: 1 }, quiet, emptied, capRead, history, ranks.claim, oneJob),
      sum(history, ranks.complete, completion.complete),
      sum(
        { zcard: -2, exists: 1 },
        quiet,
        emptied,
        history,
        ranks.completeAndClaim,
        completion.completeAndClaim,
      ),
      sum(ringLog, capWake, history, ranks.retry),
    ];
    const expected = plusOne.map((c, i) => {
      const out: Record<string, number> = { ...c };
      for (const [name, delta] of Object.entries(cuts[i] as Record<string, number>)) {
        out[name] = (out[name] ?? 0) + delta;
        if (out[name] === 0) delete out[name];
      }
      return out;
    });
    expect(counts).toEqual(expected);
    expect(counts.map(total)).toEqual([23, 23, 45, 42]);
  });

  it('another job of the queue watched: a ZSCORE more per job moved, nothing written for them', async (context) => {
    if (engine.handle.redis.mode === 'external') context.skip();
    const q = engine.queue();
    await q.watchJobs(['999999'], 60_000);
    const counts = await costs(q);
    // claim 1 job, complete 1, completeAndClaim 2 + 2, retry 1.
    const moved = [1, 1, 4, 1];
    expect(counts.map((c) => c.zscore ?? 0)).toEqual(
      BEFORE.map((c, i) => (c.zscore ?? 0) + (moved[i] as number)),
    );
    expect(counts.map((c) => c.rpush ?? 0)).toEqual(BEFORE.map((c) => c.rpush ?? 0));
    expect(await q.redis.exists(q.keys.jobEvents('1'))).toBe(0);
  });
});

/**
 * The Redis commands of claim, complete, completeAndClaim (2 completions, 2 claims) and retry
 * as {@link costs} calls them, measured at f9507b7, before includes/jobEvents.lua (22, 25, 44
 * and 33 in all).
 */
const BEFORE: Record<string, number>[] = [
  {
    time: 1,
    zcard: 1,
    zadd: 1,
    smismember: 1,
    hget: 1,
    zmscore: 1,
    hset: 3,
    hincrby: 3,
    lpop: 1,
    zrangebyscore: 2,
    hmget: 6,
    zpopmin: 1,
  },
  {
    zscore: 1,
    time: 1,
    zcard: 3,
    zadd: 2,
    hget: 6,
    hdel: 3,
    zrem: 1,
    hset: 1,
    hincrby: 2,
    hgetall: 1,
    zrangebyscore: 1,
    hmget: 1,
    sismember: 2,
  },
  {
    time: 1,
    zcard: 3,
    zadd: 4,
    smismember: 1,
    hget: 2,
    zmscore: 2,
    hdel: 4,
    zrem: 1,
    hset: 6,
    hincrby: 3,
    lpop: 1,
    zrangebyscore: 3,
    hmget: 11,
    zpopmin: 2,
  },
  {
    exists: 1,
    zscore: 2,
    time: 1,
    zcard: 2,
    zadd: 2,
    ltrim: 2,
    lpush: 2,
    hget: 6,
    rpush: 1,
    hdel: 5,
    zrem: 1,
    hset: 1,
    hincrby: 3,
    hgetall: 1,
    hmget: 1,
    sismember: 2,
  },
];
