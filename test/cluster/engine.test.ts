/**
 * The engine on a Redis Cluster (an ioredis `Cluster` given to `Ringmaster`): every script of
 * src/lua run through the engine on a queue of every master, its writes read back from that
 * master itself; a Worker (its blocking connection a duplicate Cluster), the Reaper and
 * audit/repair (a WATCH on the queue's master) on queues of every master.
 */
import { describe, expect, it } from 'vitest';
import { clusterOptions, type Job, Reaper, Ringmaster, Worker } from '../../src/lanes/index.js';
import { JOB_LAYOUT } from '../../src/lanes/keys.js';
import { LIBRARY, scriptNames } from '../../src/lanes/scripts/commands.js';
import { useTestCluster } from '../support/cluster.js';
import { queuesOnEveryMaster } from '../support/clusterQueues.js';
import { pollUntil, untilRedisTimePasses } from '../support/lanes.js';

const handle = useTestCluster();

/** An engine on a Cluster client with Ringmaster's budgets, under its own key prefix. */
function engine(prefix: string): Ringmaster {
  const client = handle.client(clusterOptions(handle.cluster.nodeTimeoutMs));
  return new Ringmaster(client, { prefix });
}

describe('the engine on a Redis Cluster', () => {
  it("judges a runAt on the clock of the queue's master before registering: a refused one leaves nothing", async () => {
    const rm = engine('clock');
    for (const { port, queue: name } of await queuesOnEveryMaster(handle.cluster)) {
      const q = rm.queue(name);
      const master = handle.cluster.node(port);
      const [sec] = await master.time();
      const before = await q.clock();
      expect(Math.abs(before - Number(sec) * 1000)).toBeLessThan(5_000);
      await expect(q.enqueue('a', null, { runAt: before + 31 * 86_400_000 })).rejects.toMatchObject(
        {
          code: 'BAD_USER_INPUT',
          argument: 'runAt',
        },
      );
      expect(await q.known()).toBe(false);
      expect(await master.keys(`${q.keys.base}*`)).toEqual([]);
      const later = await q.enqueue('a', null, { runAt: before + 600_000 });
      expect(later.state).toBe('DELAYED');
      expect(await master.zscore(q.keys.delayed, later.id)).toBe(String(before + 600_000));
    }
  });

  it('runs every script on a queue of every master, each write landing on that master', async () => {
    const rm = engine('scripts');
    const ran = new Set<string>();
    for (const { port, queue: name } of await queuesOnEveryMaster(handle.cluster)) {
      const q = rm.queue(name);
      // Steering: register-1 (first registering call), then each steering script.
      await q.setLimit('a', 2);
      await q.pause('b');
      await q.resume('b');
      await q.clearLimit('b');
      ran.add('register').add('setLimit').add('pause').add('resume').add('clearLimit');
      // Rate limits: their keys are built from the base, in the queue's slot.
      await q.setRateLimit('b', { max: 1_000, windowMs: 60_000 });
      await q.clearRateLimit('b');
      ran.add('setRateLimit').add('clearRateLimit');
      for (const group of ['a', 'a', 'a', 'b']) await q.enqueue(group, { group });
      await q.enqueue('b', null, { key: 'once' });
      expect((await q.enqueue('b', null, { key: 'once' })).id).toBe('5');
      ran.add('enqueue');
      // The job events: the watched set and the job's event list are built from the base.
      await q.watchJobs(['1'], 60_000);
      ran.add('watchJobs');
      const one = await q.claim({ leaseMs: 60_000 });
      ran.add('claim');
      await q.extendLease(one?.id as string, one?.token as string, 60_000);
      ran.add('extendLease');
      // A job's progress and log: the log key is built from the base, on the queue's master.
      await q.updateJobProgress(one?.id as string, one?.token as string, 50);
      ran.add('updateJobProgress');
      await q.addJobLog(one?.id as string, one?.token as string, 'half way');
      ran.add('addJobLog');
      expect((await q.jobLogs(one?.id as string))?.logs.map((l) => l.line)).toEqual(['half way']);
      ran.add('readJobLogs');
      await q.complete(one?.id as string, one?.token as string);
      ran.add('complete');
      expect(one?.id).toBe('1');
      const master0 = handle.cluster.node(port);
      expect(await master0.zscore(q.keys.watched, '1')).not.toBeNull();
      const events = await master0.lrange(q.keys.jobEvents('1'), 0, -1);
      // Claimed, its progress reported (the same state, with progress), completed.
      expect(events.map((e) => (JSON.parse(e) as { state: string }).state)).toEqual([
        'active',
        'active',
        'completed',
      ]);
      expect(await master0.lrange(q.keys.logs('1'), 0, -1)).toEqual([
        expect.stringMatching(/^1:\d+:half way$/),
      ]);
      const { claimed } = await q.completeAndClaim([], { claim: 2, leaseMs: 60_000 });
      ran.add('completeAndClaim');
      expect(claimed).toHaveLength(2);
      const [first, second] = claimed as [Job, Job];
      await q.retry(first.id, first.token as string, 'again');
      ran.add('retry');
      await q.completeAndClaim([{ id: second.id, token: second.token as string }], { claim: 0 });
      const short = await q.claim({ leaseMs: 1 });
      await untilRedisTimePasses(rm.redis, short?.leaseUntil as number);
      expect(await q.reap()).toBe(1);
      // reap() also runs forgetGroups-5 (new today): the groups it judges are in gseen, which
      // register wrote on the queue's master (default 1 h grace: none forgotten here).
      expect(await master0.zcard(q.keys.seen)).toBeGreaterThan(0);
      // …and pruneWorkers-2, the lapsed workers' (DESIGN.md §4.9): none lapsed here.
      ran.add('reap').add('forgetGroups').add('pruneWorkers');
      // checkEpoch-5 (new today; also sent in the background after writes): asked now, its
      // epoch is in the queue's settings on that master.
      await rm.checkState();
      expect(await master0.hget(q.keys.settings, 'epoch')).toMatch(/^[0-9a-f]{16}$/);
      ran.add('checkEpoch');
      // The reaper's lock for one pass, and its release.
      expect(await q.lockReaping('engine-test', 60_000, 5_000)).toBe(true);
      expect(await master0.get(q.keys.reaper)).toBe('engine-test');
      expect(Number(await master0.get(q.keys.reapedAt))).toBeGreaterThan(0);
      await q.releaseReaping('engine-test');
      expect(await master0.exists(q.keys.reaper)).toBe(0);
      ran.add('reaperLock').add('reaperUnlock');
      expect(await q.group('a')).toMatchObject({ limit: 2, active: 0 });
      expect((await q.groups()).groups.map((g) => g.id)).toEqual(['a', 'b']);
      ran.add('readGroups');
      const snapshot = await q.snapshot({ ids: ['a'] });
      ran.add('readSnapshot');
      expect(await q.counts()).toMatchObject({ groups: snapshot.counts.groups });
      ran.add('readCounts');
      expect(snapshot.stats).toMatchObject({ enqueued: 5, completed: 2, retried: 1, reaped: 1 });
      expect(await q.audit()).toEqual({ groupsChecked: 2, findings: [] });
      ran
        .add('reconcileLeases')
        .add('reconcileGroups')
        .add('reconcileOverrides')
        .add('reconcileReserves')
        .add('reconcileBuckets')
        .add('reconcileDue')
        .add('reconcileSchedules');
      expect(await q.known()).toBe(true);

      // What the engine reported is stored on the queue's own master, read there directly.
      const master = handle.cluster.node(port);
      expect(await master.hget(q.keys.stats, 'enqueued')).toBe('5');
      expect(await master.get(q.keys.seq)).toBe('5');
      expect(await master.lrange(q.keys.ring, 0, -1)).toEqual(snapshot.ring);
      // The job layout: checkLayout ran before the first enqueue, which marked the queue;
      // the mark and the payloads hash (built from the base) are on the same master.
      expect(await master.hget(q.keys.settings, 'layout')).toBe(String(JOB_LAYOUT));
      expect(await master.hget(q.keys.payloads, '1')).toBe('{"group":"a"}');
      ran.add('checkLayout');

      // A delayed job (its group's delayed index is a key the engine names) promoted by hand:
      // the job and lane keys promoteJob builds land on the same master.
      const later = await q.enqueue('c', null, { delayMs: 600_000 });
      expect(await master.zscore(q.keys.groupDelayed('c'), later.id)).toBe(String(later.runAt));
      expect((await q.promote(later.id)).promoted).toBe(true);
      ran.add('promoteJob');
      expect(await master.zcard(q.keys.delayed)).toBe(0);
      expect(await master.zrange(q.keys.lane('c'), 0, -1)).toEqual([later.id]);

      // The queue settings, operator actions and job reads, each on the queue's master.
      await q.pauseQueue();
      expect(await master.hget(q.keys.settings, 'paused')).toBe('1');
      await q.resumeQueue();
      ran.add('pauseQueue').add('resumeQueue');
      await q.setRetention({ dead: { count: 5 } });
      expect(await master.hget(q.keys.settings, 'deadCount')).toBe('5');
      ran.add('setRetention');
      // Weights: gweight is built from the base, on the same master.
      expect((await q.setWeight('a', 3)).weight).toBe(3);
      expect(await master.hget(q.keys.weight, 'a')).toBe('3');
      ran.add('setWeight');
      const waiting = await q.enqueue('d', { n: 1 });
      expect((await q.jobs({ state: 'PENDING', group: 'd' })).jobs.map((j) => j.id)).toEqual([
        waiting.id,
      ]);
      ran.add('readJobs');
      expect(await q.job(waiting.id)).toMatchObject({ state: 'PENDING', payload: { n: 1 } });
      ran.add('readJob');
      expect(await q.removeJobs({ ids: [waiting.id] })).toMatchObject({ count: 1 });
      expect(await master.exists(q.keys.job(waiting.id))).toBe(0);
      ran.add('removeJobs');
      expect(await q.requeueDead({ all: true })).toMatchObject({ count: 0 });
      ran.add('requeueDead');
      expect((await q.audit()).findings).toEqual([]);
      ran.add('reconcileIndexes');
      // The metrics read, and a repair's history entry, on the queue's master.
      expect(await q.metrics()).toMatchObject({ groups: 4, stats: { enqueued: 7 } });
      ran.add('readMetrics');
      // The throughput history, built from the base: written by the scripts that counted the
      // events above and read back, on the queue's master.
      expect(await master.hlen(q.keys.throughput)).toBeGreaterThan(0);
      const minutes = await q.throughput(5);
      expect(minutes.reduce((sum, p) => sum + p.enqueued, 0)).toBe(7);
      ran.add('readThroughput');
      // The rankings (built from the base, in the queue's slot), each read on the queue's master.
      for (const by of ['PENDING', 'OLDEST_PENDING', 'ACTIVE'] as const) await q.topGroups(by);
      ran.add('readTopGroups');
      await master.hset(q.keys.gactive, 'b', '4');
      expect((await q.repair({ actor: 'cluster-test' })).findings.length).toBeGreaterThan(0);
      // Recorded by the step that fixed b, on the queue's master (the totals may follow it).
      const recent = (await master.xrevrange(q.keys.history, '+', '-', 'COUNT', 5)) as [
        string,
        string[],
      ][];
      expect(recent.map(([, fields]) => fields)).toContainEqual(
        expect.arrayContaining(['action', 'repair', 'group', 'b', 'actor', 'cluster-test']),
      );
      // Timed overrides: set, cancelled, and one reverted at its deadline, on the queue's master.
      await q.pause('e', { forMs: 600_000 });
      expect(await master.zscore(q.keys.overrides, 'pause:e')).not.toBeNull();
      await q.cancelOverride('e', 'pause');
      expect(await master.zscore(q.keys.overrides, 'pause:e')).toBeNull();
      ran.add('cancelOverride');
      const timed = await q.setLimit('f', 1, { forMs: 1 });
      await untilRedisTimePasses(rm.redis, timed.limitOverride?.until as number);
      expect((await q.applyOverrides()).applied).toBe(1);
      expect(await master.hexists(q.keys.glimit, 'f')).toBe(0);
      ran.add('applyOverrides');
      // The producer's side: enqueueMany builds each job's lane, delayed index and
      // idempotency key from the base, in the queue's slot: all on the queue's master.
      const many = await q.enqueueMany([
        { group: 'm', payload: { n: 1 } },
        { group: 'm2', options: { delayMs: 600_000 } },
        { group: 'm', options: { key: 'bulk-key' } },
      ]);
      ran.add('enqueueMany');
      const [m1, m2, m3] = many as [Job, Job, Job];
      expect(await master.zrange(q.keys.lane('m'), 0, -1)).toEqual([m1.id, m3.id]);
      expect(await master.zscore(q.keys.groupDelayed('m2'), m2.id)).toBe(String(m2.runAt));
      expect(await master.hget(q.keys.idem('bulk-key'), 'id')).toBe(m3.id);
      expect(await master.lrange(q.keys.ring, 0, -1)).toContain('m');
      expect((await q.audit()).findings).toEqual([]);
      // The queue's cap and a reserve (greserve built from the base, the cap in settings), a
      // timed cap's revert and a claim that serves the owed reserve first: on the queue's master.
      const inFlight = (await q.cap()).active;
      await q.setQueueLimit(inFlight + 1);
      expect(await master.hget(q.keys.settings, 'limit')).toBe(String(inFlight + 1));
      ran.add('setQueueLimit');
      expect((await q.setReserve('m2', 1)).reserve).toBe(1);
      expect(await master.hget(q.keys.reserve, 'm2')).toBe('1');
      ran.add('setReserve');
      expect((await q.promote(m2.id)).promoted).toBe(true);
      expect((await q.claim({ leaseMs: 60_000 }))?.group).toBe('m2');
      expect(await q.claim()).toBeNull();
      expect(await master.hget(q.keys.settings, 'capped')).toBe('1');
      const capTimed = await q.setQueueLimit(inFlight + 5, { forMs: 1 });
      await untilRedisTimePasses(rm.redis, capTimed.override?.until as number);
      expect((await q.applyOverrides()).applied).toBe(1);
      expect(await master.hget(q.keys.settings, 'limit')).toBe(String(inFlight + 1));
      await q.clearQueueLimit();
      // A new priority for a pending job: its lane score and its group's level (the `levels`
      // zset and the `prioritized` marker it writes) land on the same master.
      const urgent = await q.enqueue('p', null);
      expect((await q.changeJobPriority(urgent.id, 1)).priority).toBe(1);
      expect(await master.zscore(q.keys.lane('p'), urgent.id)).toBe(
        String(Number(urgent.id) - 4e15),
      );
      expect(await master.exists(q.keys.prioritized)).toBe(1);
      ran.add('changeJobPriority');
      // Schedules: their three keys and the tick's job on the queue's master.
      await q.upsertSchedule({ id: 's', group: 'sch', everyMs: 60_000 });
      expect(await master.hexists(q.keys.scheduleDefs, 's')).toBe(1);
      ran.add('upsertSchedule');
      await master.zadd(q.keys.schedules, (await q.clock()) - 1, 's');
      expect(await q.tickSchedules()).toBe(1);
      ran.add('dueSchedules').add('fireSchedules');
      const [tick] = (await q.schedules()).schedules;
      ran.add('readSchedules');
      expect(await master.zrange(q.keys.lane('sch'), 0, -1)).toEqual([tick?.lastJobId]);
      expect(await master.hget(q.keys.scheduleRuns, 's')).toMatch(/:/);
      expect(await q.removeSchedule('s')).toBe(true);
      expect(await master.exists(q.keys.schedules, q.keys.scheduleDefs)).toBe(0);
      ran.add('removeSchedule');
      expect((await q.audit()).findings).toEqual([]);
      // The worker registry (DESIGN.md §4.9): its keys, and the job's worker, on that master.
      await q.workerHeartbeat({ id: 'w-cluster', heartbeatMs: 60_000, active: 0, fresh: true });
      ran.add('workerBeat');
      expect(await master.zscore(q.keys.workers, 'w-cluster')).not.toBeNull();
      expect(await master.hexists(q.keys.workerInfo, 'w-cluster')).toBe(1);
      expect((await q.workers()).map((w) => w.id)).toEqual(['w-cluster']);
      expect(await q.workerCount()).toBe(1);
      ran.add('readWorkers');
      const held = await q.claim({ leaseMs: 60_000, workerId: 'w-cluster' });
      expect(await master.hget(q.keys.job(held?.id as string), 'worker')).toBe('w-cluster');
      expect(await q.removeWorker('w-cluster')).toBe(true);
      ran.add('workerGone');
      expect(await master.exists(q.keys.workers, q.keys.workerInfo)).toBe(0);
      // The in-place layout upgrade (DESIGN.md §2, "Upgrading in place"): a queue of this
      // layout is done at once; its step reads the mark and the id counter on that master.
      expect(await q.upgradeLayout()).toMatchObject({ done: true, layout: '2', visitedTo: 0 });
      expect(await master.hget(q.keys.settings, 'layout')).toBe('2');
      ran.add('upgradeLayout');
      // The backlog bounds (DESIGN.md §3, "Backlog bounds"), in the queue's slot.
      await q.setMaxPending('b', 100);
      await q.setDefaultMaxPending(50);
      expect(await master.hgetall(q.keys.maxPending)).toEqual({ b: '100', '': '50' });
      expect(await q.defaultMaxPending()).toBe(50);
      ran.add('setMaxPending').add('setDefaultMaxPending');
    }
    expect([...ran].sort()).toEqual([...scriptNames].sort());
    expect(await rm.queues()).toHaveLength(3);
  });

  it("serves levels on a queue of every master, the levels' keys on that master", async () => {
    const rm = engine('levels');
    for (const { port, queue: name } of await queuesOnEveryMaster(handle.cluster)) {
      const q = rm.queue(name);
      const master = handle.cluster.node(port);
      await q.enqueue('a', 0);
      await q.enqueue('x', 0, { priority: 2 });
      await q.enqueue('x', 1);
      await q.enqueue('z', 0, { priority: 8 });
      expect(await q.rota()).toEqual([
        { group: 'x', level: 2 },
        { group: 'a', level: 5 },
        { group: 'z', level: 8 },
      ]);
      expect(await master.exists(q.keys.prioritized)).toBe(1);
      expect(await master.zrange(q.keys.levels, 0, -1)).toEqual(['x', 'z']);
      const claimed = await q.completeAndClaim([], { claim: 3 });
      expect(claimed.claimed.map((j) => j.group)).toEqual(['x', 'a', 'x']);
      expect(await master.zrange(q.keys.levels, 0, -1)).toEqual(['z']);
      expect((await q.snapshot()).ring).toEqual(['z']);
      expect((await q.audit()).findings).toEqual([]);
    }
  });

  it('loads the library on every master, and again on a master that lost it (FUNCTION FLUSH)', async () => {
    const rm = engine('library');
    const queues = await queuesOnEveryMaster(handle.cluster);
    for (const { queue } of queues) await rm.queue(queue).enqueue('g', null);
    const libraries = async (port: number) =>
      ((await handle.cluster.node(port).call('FUNCTION', 'LIST')) as unknown[][]).map((l) => l[1]);
    for (const { port } of queues) expect(await libraries(port)).toEqual([LIBRARY.name]);
    // One master loses it (a restart, a failover to a node without it): its next call loads it.
    const lost = queues.at(-1) as (typeof queues)[number];
    await handle.cluster.node(lost.port).call('FUNCTION', 'FLUSH');
    expect(await libraries(lost.port)).toEqual([]);
    const offsets = async () =>
      Promise.all(
        queues.map(async ({ port }) => {
          const info = await handle.cluster.node(port).info('replication');
          return Number(/master_repl_offset:(\d+)/.exec(info)?.[1]);
        }),
      );
    const before = await offsets();
    expect((await rm.queue(lost.queue).enqueue('g', null)).id).toBe('2');
    expect(await libraries(lost.port)).toEqual([LIBRARY.name]);
    // Loaded on every master, but only the one without it compiled it and sent it to its
    // replica: the others answered "already exists" (a REPLACE would send 0.65 MB from each).
    const sent = (await offsets()).map((offset, i) => offset - (before[i] as number));
    for (const [i, { port }] of queues.entries()) {
      if (port === lost.port) expect(sent[i]).toBeGreaterThan(LIBRARY.code.length);
      else expect(sent[i]).toBeLessThan(LIBRARY.code.length / 10);
    }
  });

  it('a Worker per master processes every job; the Reaper reaps every master; audit and repair work', async () => {
    const rm = engine('workers');
    const queues = await queuesOnEveryMaster(handle.cluster, 'w');
    const done = new Map<string, number>();
    const workers = queues.map(
      ({ queue }) =>
        new Worker(
          rm.queue(queue),
          async (job) => {
            done.set(queue, (done.get(queue) ?? 0) + 1);
            return job.id;
          },
          { concurrency: 4, reaper: false },
        ),
    );
    try {
      for (const { queue } of queues) {
        for (let i = 0; i < 30; i++) await rm.queue(queue).enqueue(`g${i % 3}`, { i });
      }
      await pollUntil('every job done', async () => queues.every((q) => done.get(q.queue) === 30));
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }

    // An expired lease on every master: one Reaper of the engine takes each back.
    for (const { queue } of queues) {
      const q = rm.queue(queue);
      await q.enqueue('late');
      const job = await q.claim({ leaseMs: 1 });
      await untilRedisTimePasses(rm.redis, job?.leaseUntil as number);
    }
    const reaped: string[] = [];
    const reaper = new Reaper(rm, { onReaped: (queue) => reaped.push(queue) });
    expect(await reaper.reapOnce()).toBe(3);
    expect(reaped.sort()).toEqual(queues.map((q) => q.queue).sort());

    // Damage on each master by hand (a leaked permit, a group off the ring), found and fixed.
    for (const { port, queue } of queues) {
      const q = rm.queue(queue);
      const master = handle.cluster.node(port);
      await master.hset(q.keys.gactive, 'g1', '7');
      await master.lrem(q.keys.ring, 0, 'late');
      const audit = await q.audit();
      expect(audit.findings.map((f) => f.kind).sort()).toEqual(['I1', 'I3']);
      expect((await q.repair()).findings.map((f) => f.kind).sort()).toEqual(['I1', 'I3']);
      expect(await q.audit()).toMatchObject({ findings: [] });
    }
  });
});

describe('checkServer on a Redis Cluster', () => {
  it('finds a master whose user may not run the scripts (ACLs are per node)', async () => {
    const masters = (await handle.cluster.topology()).filter((n) => n.role === 'master');
    const rules = ['on', '>acl-pw', '~*', '&*', '+@all'];
    for (const { port } of handle.cluster.seeds) {
      await handle.cluster.node(port).call('ACL', 'SETUSER', 'app', 'reset', ...rules);
    }
    const as = () =>
      new Ringmaster(
        handle.client({
          ...clusterOptions(handle.cluster.nodeTimeoutMs),
          redisOptions: { username: 'app', password: 'acl-pw' },
        }),
        { prefix: 'aclcheck' },
      );
    await expect(as().checkServer()).resolves.toMatch(/^\d/);
    // The last master only: every master is checked, not one.
    const last = masters.at(-1)?.port as number;
    await handle.cluster.node(last).call('ACL', 'SETUSER', 'app', '-eval', '-evalsha');
    await expect(as().checkServer()).rejects.toMatchObject({
      code: 'REDIS_NOT_PERMITTED',
      message: expect.stringMatching(
        /^Redis refused the EVAL(SHA)? command .*~aclcheck:\* for its prefix/,
      ),
    });
  });
});
