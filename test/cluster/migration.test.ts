/**
 * A queue's slot moves to another master (CLUSTER SETSLOT IMPORTING/MIGRATING, MIGRATE key by
 * key, SETSLOT NODE) while producers, workers and operators keep calling every script. The
 * slot guard (`P:{Q}:guard`, DESIGN.md §3) keeps Redis from running a script while the slot is
 * open on either side; without it a script builds a lane or job key that has already left,
 * fails at that `redis.call` after its first writes ("non local key"), and the queue breaks
 * I1–I4. Checked: no call fails, every job ends exactly once, I1–I4 and the counters hold.
 */
import type { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { type Queue, Ringmaster } from '../../src/lanes/index.js';
import { useTestCluster } from '../support/cluster.js';

const GROUPS = ['a', 'b', 'c', 'd', 'e', 'f'];
const JOBS = 600;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The budget a cluster client needs to wait out a slot move (every hop costs one redirection). */
const PATIENT = { maxRedirections: 10_000, retryDelayOnTryAgain: 5, retryDelayOnMoved: 0 };

/** Invariants I1–I4 and the counters on a queue that has gone quiet (known groups only). */
async function checkQuiet(queue: Queue, issued: number): Promise<void> {
  const r = queue.redis;
  const k = queue.keys;
  const [ring, paused, glimit, gactive, active, leases, dead, seq, stats] = await Promise.all([
    r.lrange(k.ring, 0, -1),
    r.smembers(k.paused),
    r.hgetall(k.glimit),
    r.hgetall(k.gactive),
    r.zrange(k.active, 0, -1),
    r.hgetall(k.leases),
    r.zrange(k.dead, 0, -1),
    r.get(k.seq),
    queue.stats(),
  ]);
  expect(Number(seq), 'ids issued').toBe(issued);
  expect(new Set(ring).size, 'I2: no duplicates on the ring').toBe(ring.length);
  expect(gactive, 'I3: no permit held once every job ended').toEqual({});
  expect(active, 'nothing active').toEqual([]);
  expect(leases, 'no lease left').toEqual({});
  for (const group of GROUPS) {
    const pending = await r.zcard(k.lane(group));
    expect(pending, `lane of ${group} drained`).toBe(0);
    const serviceable = !paused.includes(group) && pending > 0;
    expect(ring.includes(group), `I1 for ${group} (limit ${glimit[group]})`).toBe(serviceable);
  }
  const deadIds = new Set(dead);
  // Completed: kept by the completed retention (state completed, in `completed`) or gone.
  const keptIds = new Set(await r.zrange(k.completed, 0, -1));
  const states = await Promise.all(
    Array.from({ length: issued }, (_, i) => r.hget(k.job(String(i + 1)), 'state')),
  );
  const misplaced = states
    .map((state, i) => ({ id: String(i + 1), state }))
    .filter(({ id, state }) =>
      state === null
        ? deadIds.has(id) || keptIds.has(id)
        : state === 'completed'
          ? !keptIds.has(id) || deadIds.has(id)
          : state !== 'dead' || !deadIds.has(id),
    );
  expect(misplaced, 'I4: every job completed or dead, never both').toEqual([]);
  expect(stats.enqueued, 'stats.enqueued').toBe(issued);
  expect(stats.completed + stats.dead, 'each job ended exactly once').toBe(issued);
  expect(stats.dead, 'stats.dead = |dead|').toBe(deadIds.size);
  expect(await r.exists(k.guard), 'the slot guard is never written').toBe(0);
}

/**
 * The keys scripts build (lanes, job hashes) first, the declared ones last: the order in which a
 * script would find a built key gone while every key it declares is still here.
 */
function builtKeysFirst(keys: string[]): string[] {
  const built = (key: string) => /:(g:.*:pending|job:\d+)$/.test(key);
  return [...keys.filter(built), ...keys.filter((key) => !built(key))];
}

describe('a queue whose slot moves', () => {
  const handle = useTestCluster();

  it('runs no script while the slot is half moved, and each once on the new owner after', async () => {
    const { cluster } = handle;
    const client: Cluster = handle.client(PATIENT);
    const engine = new Ringmaster(client as unknown as Redis);
    const queue = engine.queue('halfway');
    // Every key a script declares exists (so only the guard can stop it): limits, a paused
    // group with a backlog, a dead job, active jobs with leases, wake tokens, stats.
    await queue.setLimit('a', 5);
    await queue.setLimit('b', 5);
    for (const group of ['a', 'a', 'a', 'b', 'b', 'b', 'c', 'd']) await queue.enqueue(group, {});
    await queue.enqueue('dies', {}, { maxAttempts: 1 });
    await queue.pause('z').then(() => queue.enqueue('z', {}));
    const claimed = [];
    for (let i = 0; i < 6; i++) claimed.push(await queue.claim({ leaseMs: 60_000 }));
    const [toComplete, toRetry, toExtend, batchDone, dying] = claimed.filter(
      (job): job is NonNullable<typeof job> => job !== null,
    );
    if (!toComplete || !toRetry || !toExtend || !batchDone || !dying) throw new Error('setup');
    const expiring = await queue.claim({ leaseMs: 1 });
    expect(expiring).not.toBeNull();
    // The job keys: queue settings and delayed jobs (the queue's and their group's index).
    await queue.setRetention({ completed: { count: 100 } });
    const later = await queue.enqueue('e', {}, { delayMs: 600_000 });
    const unwanted = await queue.enqueue('e', {}, { delayMs: 600_000 });

    const slot = await cluster.keySlot(queue.keys.ring);
    const home = await cluster.ownerOf(queue.keys.ring);
    const away = (await cluster.topology()).find((n) => n.role === 'master' && n.port !== home)
      ?.port as number;
    const move = await cluster.beginSlotMove(slot, away);
    const built = (await move.remaining()).filter((key) => builtKeysFirst([key, 'x'])[0] === key);
    expect(built.length).toBeGreaterThan(5);
    await move.move(built);

    const settled: string[] = [];
    const calls = Object.entries({
      claim: () => queue.claim(),
      completeAndClaim: () =>
        queue.completeAndClaim([{ id: batchDone.id, token: batchDone.token as string }], {
          claim: 2,
        }),
      complete: () => queue.complete(toComplete.id, toComplete.token as string),
      retry: () => queue.retry(toRetry.id, toRetry.token as string, 'again'),
      extendLease: () => queue.extendLease(toExtend.id, toExtend.token as string, 90_000),
      reap: () => queue.reap(),
      enqueue: () => queue.enqueue('a', { late: true }),
      setLimit: () => queue.setLimit('a', 3),
      clearLimit: () => queue.clearLimit('b'),
      pause: () => queue.pause('c'),
      resume: () => queue.resume('z'),
      snapshot: () => queue.snapshot({ first: 10 }),
      groups: () => queue.groups({ first: 10 }),
      setRetention: () => queue.setRetention({ dead: { count: 50 } }),
      pauseQueue: () => queue.pauseQueue(),
      promote: () => queue.promote(later.id),
      removeJobs: () => queue.removeJobs({ ids: [unwanted.id] }),
      requeueDead: () => queue.requeueDead({ all: true }),
      jobs: () => queue.jobs({ state: 'DELAYED' }),
    }).map(([name, call]) =>
      call().then(
        (value) => {
          settled.push(name);
          return value;
        },
        (error: Error) => {
          settled.push(name);
          throw new Error(`${name}: ${error.message}`);
        },
      ),
    );
    await sleep(300);
    expect(settled, 'calls that ran while the slot was half moved').toEqual([]);
    await move.finish();
    const results = await Promise.allSettled(calls);
    const failed = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
    expect(failed, 'calls that failed').toEqual([]);
    expect(await cluster.ownerOf(queue.keys.ring)).toBe(away);
    expect(await queue.state()).toBe('PAUSED');
    await queue.resumeQueue();
    expect(await queue.redis.zcard(queue.keys.delayed), 'promoted and removed').toBe(0);
    expect(await queue.reap()).toBe(0);
    expect(await queue.redis.exists(queue.keys.guard)).toBe(0);
    // I1–I3 on the new owner: each group on the ring exactly when serviceable, permits = leases.
    const audit = await queue.audit().catch(() => null);
    if (audit) expect(audit.findings).toEqual([]);
    const r = queue.redis;
    const [ring, paused, gactive, leases] = await Promise.all([
      r.lrange(queue.keys.ring, 0, -1),
      r.smembers(queue.keys.paused),
      r.hgetall(queue.keys.gactive),
      r.hgetall(queue.keys.leases),
    ]);
    const held: Record<string, string> = {};
    for (const group of Object.values(leases)) held[group] = String(Number(held[group] ?? 0) + 1);
    expect(gactive, 'I3').toEqual(held);
    expect(new Set(ring).size, 'I2').toBe(ring.length);
    for (const group of ['a', 'b', 'c', 'd', 'z']) {
      const info = await queue.group(group);
      const serviceable =
        !paused.includes(group) &&
        info.pending > 0 &&
        (info.limit === null || info.active < info.limit);
      expect(ring.includes(group), `I1 for ${group}`).toBe(serviceable);
    }
  }, 60_000);

  it('answers every call, once, and keeps I1–I4 while its slot moves there and back', async () => {
    const { cluster } = handle;
    const client: Cluster = handle.client(PATIENT);
    const engine = new Ringmaster(client as unknown as Redis);
    const queue = engine.queue('moving');
    const errors: string[] = [];
    const record = (error: unknown) => {
      errors.push(error instanceof Error ? error.message : String(error));
    };
    for (const group of GROUPS) await queue.setLimit(group, 2);

    // A backlog first, so the slot holds hundreds of keys (a job hash each) when it moves.
    let produced = 0;
    for (; produced < JOBS / 2; produced++) {
      await queue.enqueue(
        GROUPS[produced % GROUPS.length] as string,
        { n: produced },
        {
          maxAttempts: 2,
        },
      );
    }
    const producer = (async () => {
      while (produced < JOBS) {
        const n = produced++;
        const group = GROUPS[n % GROUPS.length] as string;
        await queue.enqueue(group, { n }, { maxAttempts: 2 }).catch(record);
        if (n % 20 === 0) await sleep(1);
      }
    })();

    let stop = false;
    const steering = (async () => {
      for (let i = 0; !stop; i++) {
        const group = GROUPS[i % GROUPS.length] as string;
        await queue.pause(group).catch(record);
        await queue.setLimit(group, 1 + (i % 3)).catch(record);
        await queue.resume(group).catch(record);
        await sleep(3);
      }
    })();

    // Workers: one claims and completes one job at a time (every 7th job fails and is retried),
    // one completes and claims in batches, as the Worker does.
    const single = (async () => {
      while (!stop) {
        const job = await queue.claim({ leaseMs: 60_000 }).catch(record);
        if (!job) {
          await sleep(2);
          continue;
        }
        const n = (job.payload as { n: number }).n;
        if (n % 7 === 0) await queue.retry(job.id, job.token as string, 'boom').catch(record);
        else await queue.complete(job.id, job.token as string).catch(record);
      }
    })();
    const batched = (async () => {
      let held: { id: string; token: string }[] = [];
      while (!stop) {
        const result = await queue
          .completeAndClaim(held, { claim: 4, leaseMs: 60_000 })
          .catch((error) => {
            record(error);
            return null;
          });
        held = (result?.claimed ?? []).map((job) => ({
          id: job.id,
          token: job.token as string,
        }));
        if (held.length === 0) await sleep(2);
      }
    })();
    const reads = (async () => {
      while (!stop) {
        await queue.snapshot({ first: 10 }).catch(record);
        await queue.reap().catch(record);
        await sleep(5);
      }
    })();

    // Move the slot away key by key (a pause after each MIGRATE, so calls keep arriving while it
    // is half moved), and back in batches of 10.
    await sleep(20);
    const slot = await cluster.keySlot(queue.keys.ring);
    const home = await cluster.ownerOf(queue.keys.ring);
    const away = (await cluster.topology()).find(
      (node) => node.role === 'master' && node.port !== home,
    )?.port as number;
    let movedKeys = 0;
    await cluster.migrateSlot(slot, away, {
      order: builtKeysFirst,
      afterEachKey: async () => {
        movedKeys++;
        await sleep(2);
      },
    });
    expect(await cluster.ownerOf(queue.keys.ring)).toBe(away);
    await sleep(50);
    await cluster.migrateSlot(slot, home, {
      keysPerMigrate: 10,
      afterEachKey: async () => {
        await sleep(1);
      },
    });
    expect(await cluster.ownerOf(queue.keys.ring)).toBe(home);

    await producer;
    for (let i = 0; i < 200; i++) {
      const counts = await queue.counts();
      const stats = await queue.stats();
      if (counts.pending === 0 && stats.completed + stats.dead === JOBS) break;
      await sleep(50);
    }
    stop = true;
    await Promise.all([steering, single, batched, reads]);
    // The steering loop may have left a group paused (and so pending): resume it and drain.
    for (const group of GROUPS) await queue.resume(group);
    for (let job = await queue.claim(); job; job = await queue.claim()) {
      await queue.complete(job.id, job.token as string);
    }

    expect(movedKeys, 'keys moved one by one while traffic ran').toBeGreaterThan(100);
    expect(errors, 'calls that failed while the slot moved').toEqual([]);
    await checkQuiet(queue, JOBS);
  }, 120_000);
});
