/**
 * Forgetting groups (DESIGN.md §3, "Forgetting groups"; script `forgetGroups-5.lua`, run by
 * `Queue.reap` and so by every `Reaper` pass): a group no call has registered for the grace
 * (`groupGraceMs`) and left idle and unset leaves no key, no field and no index entry naming it;
 * a group with work, retained jobs or anything set on it is kept, and forgotten once it is
 * cleared and a grace has passed. And `heads` (§3, "Oldest pending") holds a group exactly while
 * its lane holds a job: claims and removals drop the entry of a lane they empty.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, type Queue, Reaper, RingmasterError } from '../../src/lanes/index.js';
import {
  escapeGlob,
  redisNow,
  scanAll,
  untilRedisTimePasses,
  useEngine,
} from '../support/lanes.js';

const engine = useEngine();

/**
 * Every place under the queue's prefix that names `group`: a key with `g:<group>:` in its name,
 * a hash field (or a timed override's `<kind>:<group>` field), a member of a set or zset, an
 * element of a list. The history stream is a log of what was done, capped, and not read here.
 */
async function traces(q: Queue, group: string): Promise<string[]> {
  const r = q.redis;
  const found: string[] = [];
  for (const key of await scanAll(r, `${escapeGlob(q.keys.base)}*`)) {
    if (key.includes(`:g:${group}:`)) found.push(`key ${key}`);
    const type = await r.type(key);
    if (type === 'hash') {
      const fields = await r.hkeys(key);
      for (const f of fields) {
        if (f === group || f === `limit:${group}` || f === `pause:${group}`) {
          found.push(`${key} field ${f}`);
        }
      }
    } else if (type === 'zset') {
      if ((await r.zscore(key, group)) !== null) found.push(`${key} member`);
    } else if (type === 'set') {
      if ((await r.sismember(key, group)) === 1) found.push(`${key} member`);
    } else if (type === 'list') {
      if ((await r.lpos(key, group)) !== null) found.push(`${key} element`);
    }
  }
  return found;
}

/** Enqueue one job of `group`, claim it and complete it. */
async function runOne(q: Queue, group: string): Promise<void> {
  await q.enqueue(group, { n: 1 });
  const job = await q.claim();
  expect(job?.group).toBe(group);
  await q.complete(job?.id as string, job?.token as string);
}

/** Claim and complete every job there is, 500 per call (completeAndClaim). */
async function drain(q: Queue): Promise<void> {
  let done: { id: string; token: string }[] = [];
  for (;;) {
    const { claimed } = await q.completeAndClaim(done, { claim: 500 });
    if (claimed.length === 0) return;
    done = claimed.map((j) => ({ id: j.id, token: j.token as string }));
  }
}

async function registered(q: Queue): Promise<string[]> {
  const page = await q.groups({ first: 500 });
  return page.groups.map((g) => g.id);
}

describe('forgetting groups', () => {
  it('a one-job group completed without retention leaves nothing naming it once its grace passed', async () => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 0 } });
    await runOne(q, 'tenant-1');
    expect(await traces(q, 'tenant-1')).toContain(`${q.keys.groups} member`);

    // Within the grace it stays registered, as any group does.
    await q.reap({ groupGraceMs: 60_000 });
    expect(await registered(q)).toEqual(['tenant-1']);

    await q.reap({ groupGraceMs: 0 });
    expect(await traces(q, 'tenant-1')).toEqual([]);
    expect((await q.groups()).totalCount).toBe(0);
    expect((await q.audit()).findings).toEqual([]);
    // Read again, it is a group never used.
    expect(await q.group('tenant-1')).toMatchObject({ state: 'IDLE', pending: 0, active: 0 });
  });

  it('keeps a group with work, retained jobs or anything set on it; forgets it once cleared', async () => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 0 } });
    await q.setLimit('limited', 3);
    await q.pause('paused');
    await q.setWeight('weighted', 4);
    await q.setRateLimit('rated', { max: 5, windowMs: 60_000 });
    await q.setLimit('timed', 2, { forMs: 3_600_000 });
    await q.clearLimit('timed'); // the limit is gone, a timed override of it…
    await q.setLimit('timed', 2, { forMs: 3_600_000 }); // …is set again, and stays
    await q.enqueue('failed', null, { maxAttempts: 1 });
    const dying = await q.claim();
    expect(dying?.group).toBe('failed');
    await q.retry(dying?.id as string, dying?.token as string, 'boom');
    await q.enqueue('backlog');
    await q.enqueue('later', null, { delayMs: 3_600_000 });
    await q.enqueue('working');
    await q.enqueue('backlog'); // behind 'working' now: a second job, the lane keeps one
    const busy = await q.claim();
    expect(busy?.group).toBe('backlog');
    const active = await q.claim();
    expect(active?.group).toBe('working');

    const all = [
      'backlog',
      'failed',
      'later',
      'limited',
      'paused',
      'rated',
      'timed',
      'weighted',
      'working',
    ];
    await q.reap({ groupGraceMs: 0 });
    expect(await registered(q)).toEqual(all);

    // Cleared, each is forgotten by the next pass after its grace.
    await q.clearLimit('limited');
    await q.resume('paused');
    await q.setWeight('weighted', 1);
    await q.clearRateLimit('rated');
    await q.cancelOverride('timed', 'limit');
    await q.clearLimit('timed');
    await q.complete(active?.id as string, active?.token as string);
    await q.complete(busy?.id as string, busy?.token as string);
    const last = await q.claim();
    await q.complete(last?.id as string, last?.token as string);
    await q.removeJobs({ group: 'later', state: 'DELAYED' });
    await q.removeJobs({ group: 'failed', state: 'DEAD' });
    // A grace of a minute: every one was registered (or looked at) just now, so all stay.
    await q.reap({ groupGraceMs: 60_000 });
    expect(await registered(q)).toEqual(all);
    await q.reap({ groupGraceMs: 0 });
    expect(await registered(q)).toEqual([]);
    for (const group of all) expect(await traces(q, group)).toEqual([]);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('a Reaper forgets after its groupGraceMs; a bad grace is refused before anything runs', async () => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 0 } });
    for (const from of [0, 600]) {
      await q.enqueueMany(Array.from({ length: 600 }, (_, i) => ({ group: `g${from + i}` })));
    }
    await drain(q);
    expect((await q.groups()).totalCount).toBe(1_200);
    await new Reaper(q, { intervalMs: 1, groupGraceMs: 3_600_000 }).reapOnce();
    expect((await q.groups()).totalCount).toBe(1_200);
    await untilRedisTimePasses(q.redis, (await redisNow(q.redis)) + 1);
    // 1,200 groups: more than one call's batch, so the pass loops.
    await new Reaper(q, { intervalMs: 1, groupGraceMs: 0 }).reapOnce();
    expect((await q.groups()).totalCount).toBe(0);
    expect(await q.redis.exists(q.keys.seen, q.keys.heads, q.keys.groups)).toBe(0);

    for (const bad of [-1, 1.5, '5', 2_592_000_001]) {
      const refused = await q.reap({ groupGraceMs: bad as number }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RingmasterError);
      expect(refused).toMatchObject({ code: ErrorCode.BAD_USER_INPUT });
      expect(() => new Reaper(q, { groupGraceMs: bad as number })).toThrow(RingmasterError);
    }
  });

  it('a pass over more held groups than a call judges ends, whatever the grace (0 included)', async () => {
    const q = engine.queue();
    // 600 held groups (each with a weight): a call judges 500, keeps them and moves each to
    // now; with a grace of 0 they are due again at once, so a loop that went on while calls
    // came back full would never end.
    for (let i = 0; i < 600; i++) await q.setWeight(`held${i}`, 2);
    await untilRedisTimePasses(q.redis, (await redisNow(q.redis)) + 1);
    const reaped = await Promise.race([
      q.reap({ groupGraceMs: 0 }),
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000)),
    ]);
    expect(reaped).toBe(0);
    expect((await q.groups()).totalCount).toBe(600);
  });

  it('audit reports a registered group missing from gseen; repair adds it, and it is forgotten', async () => {
    const q = engine.queue();
    await q.setLimit('old', 1);
    await q.clearLimit('old');
    // Registered as a version before gseen would have left it.
    await q.redis.zrem(q.keys.seen, 'old');
    await q.reap({ groupGraceMs: 0 });
    expect(await registered(q)).toEqual(['old']);
    const { findings } = await q.audit();
    expect(findings).toMatchObject([
      { kind: 'REGISTRY', subject: 'old', expected: 'in gseen', found: 'not in gseen' },
    ]);
    await q.repair();
    expect((await q.audit()).findings).toEqual([]);
    await q.reap({ groupGraceMs: 0 });
    expect(await registered(q)).toEqual([]);
  });

  it('heads holds a group exactly while its lane holds a job', async () => {
    const q = engine.queue();
    await q.setLimit('one', 1);
    await q.enqueue('one');
    await q.enqueue('free');
    await q.enqueue('two');
    await q.enqueue('two');
    await q.enqueue('gone');
    await q.setWeight('two', 3);
    expect(await q.redis.zrange(q.keys.heads, 0, -1)).toEqual(['one', 'free', 'two', 'gone']);
    // A saturated group ('one', at its limit), a group of weight 1 and a weighted one empty
    // their lanes by claims; 'gone' is removed by an operator.
    const { claimed } = await q.completeAndClaim([], { claim: 4 });
    expect(claimed.map((j) => j.group).sort()).toEqual(['free', 'one', 'two', 'two']);
    await q.removeJobs({ group: 'gone', state: 'PENDING' });
    expect(await q.redis.exists(q.keys.heads)).toBe(0);
    await q.enqueue('free');
    expect(await q.redis.zrange(q.keys.heads, 0, -1)).toEqual(['free']);
  });
});
