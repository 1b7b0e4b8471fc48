/**
 * The Worker (src/lanes/worker.ts) against a real Redis: concurrency, per-group limits across
 * workers, complete / retry / lease extension, parking on the wake list and waking on a
 * re-ring, graceful close, and a worker process SIGKILLed mid-job.
 *
 * Waits are events or bounded polls; the only timers are the handlers' own simulated work.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ErrorCode,
  type Job,
  type Processor,
  Queue,
  RingmasterError,
  Worker,
  type WorkerOptions,
} from '../../src/lanes/index.js';
import type { RedisClient } from '../../src/lanes/redis/client.js';
import { useTestRedis } from '../support/redis.js';

/** Queue names are unique per run, in case REDIS_URL points at a Redis that outlives it. */
const RUN = Math.random().toString(36).slice(2, 8);
const CHILD = fileURLToPath(new URL('../fixtures/worker-child.ts', import.meta.url));
const NO_LISTENER_CHILD = fileURLToPath(
  new URL('../fixtures/worker-no-listener.ts', import.meta.url),
);
/** Parked workers in these tests would sleep this long without a wake. */
const PARK_MS = 60_000;
/** "Promptly": far below PARK_MS, generous for a loaded 2-core machine. */
const PROMPT_MS = 2_000;

// ── helpers ────────────────────────────────────────────────────────────────────────────────

interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
}
function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Poll `probe` until it returns a value other than undefined/false, or fail after `ms`. */
async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 5_000,
): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (performance.now() > deadline)
      throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(5);
  }
}

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

/** Clients named `name` that are blocked in a command (flag `b`), per CLIENT LIST. */
async function blockedClients(admin: Redis, name: string): Promise<number> {
  const list = (await admin.client('LIST')) as string;
  return list
    .split('\n')
    .filter((line) => line.includes(` name=${name} `) && / flags=[A-Za-z]*b/.test(line)).length;
}

/** Wait until `count` workers whose connections are named `name` are parked in BLPOP. */
function parked(admin: Redis, name: string, count = 1): Promise<true> {
  return waitFor(`${count} parked worker(s) named ${name}`, async () =>
    (await blockedClients(admin, name)) >= count ? true : undefined,
  );
}

async function redisMs(redis: RedisClient): Promise<number> {
  const [sec, usec] = await redis.time();
  return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
}

/** Per-key in-flight counter that remembers its peak. */
class InFlight {
  readonly now = new Map<string, number>();
  readonly peak = new Map<string, number>();
  total = 0;
  peakTotal = 0;
  enter(key: string): void {
    const n = (this.now.get(key) ?? 0) + 1;
    this.now.set(key, n);
    this.peak.set(key, Math.max(n, this.peak.get(key) ?? 0));
    this.total += 1;
    this.peakTotal = Math.max(this.peakTotal, this.total);
  }
  leave(key: string): void {
    this.now.set(key, (this.now.get(key) ?? 0) - 1);
    this.total -= 1;
  }
}

/** One `completeAndClaim` call a worker made: what it sent, and what it claimed. */
interface Call {
  done: string[];
  claim: number;
  /** Ids it claimed; undefined until it answers. */
  claimed?: string[];
}

/**
 * Record every `completeAndClaim` call made through `q` (the Worker sends all its completions
 * and claims through it). `hold(call)` may return a promise the answer waits for.
 */
function recordCalls(q: Queue, hold: (call: Call) => Promise<void> | undefined = () => undefined) {
  const calls: Call[] = [];
  const real = q.completeAndClaim.bind(q);
  q.completeAndClaim = async (completions, options = {}) => {
    const call: Call = { done: completions.map((c) => c.id), claim: options.claim ?? 1 };
    calls.push(call);
    const result = await real(completions, options);
    await hold(call);
    call.claimed = result.claimed.map((job) => job.id);
    return result;
  };
  return calls;
}

// ── tests ──────────────────────────────────────────────────────────────────────────────────

describe('Worker', () => {
  const redis = useTestRedis();
  const workers: Worker[] = [];
  const children: ChildProcess[] = [];
  /** 'error' events of every worker of the test: none is expected. */
  const errors: Error[] = [];
  /** Gates a test holds handlers on, opened after it (pass or fail) so close() can finish. */
  const gates: Deferred[] = [];
  function gate(): Deferred {
    const d = deferred();
    gates.push(d);
    return d;
  }
  let queues = 0;

  /** A fresh queue on a fresh connection named `connectionName` (inherited by the worker's). */
  function queue(connectionName = 'rm-test'): Queue {
    const client = redis.client({ connectionName });
    return new Queue(client, `worker-${RUN}-${queues++}`);
  }

  /** A worker closed after the test; its 'error' events fail the test. */
  function worker(q: Queue, processor: Processor, options: WorkerOptions = {}): Worker {
    const w = new Worker(q, processor, options);
    w.on('error', (error) => errors.push(error));
    workers.push(w);
    return w;
  }

  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    for (const g of gates.splice(0)) g.resolve();
    await Promise.all(workers.splice(0).map((w) => w.close()));
    expect(errors.splice(0).map((e) => e.stack)).toEqual([]);
  });

  it('never runs more than `concurrency` handlers at once, and fills every slot', async () => {
    const q = queue();
    const jobs = 40;
    for (let i = 0; i < jobs; i++) await q.enqueue(`g${i % 5}`, { i });
    const flight = new InFlight();
    const full = gate();
    const done = deferred();
    let completed = 0;
    const w = worker(
      q,
      async (job) => {
        flight.enter('all');
        // The first handlers hold on until all three slots are busy (a worker that ran fewer
        // at once would time out here); later ones do simulated work of varying length.
        if (flight.total === 3) full.resolve();
        if (Number(job.id) <= 3) await full.promise;
        await sleep(Number(job.id) % 4);
        flight.leave('all');
      },
      { concurrency: 3 },
    );
    w.on('completed', () => {
      if (++completed === jobs) done.resolve();
    });
    await done.promise;
    expect(flight.peakTotal).toBe(3);
    expect((await q.stats()).completed).toBe(jobs);
    expect(await q.redis.zcard(q.keys.active)).toBe(0);
  });

  it('keeps every group under its limit across several workers', async () => {
    const limits: Record<string, number | null> = { a: 1, b: 2, c: 3, d: null };
    const perGroup = 10;
    const setup = queue();
    for (const [group, limit] of Object.entries(limits)) {
      if (limit !== null) await setup.setLimit(group, limit);
      for (let i = 0; i < perGroup; i++) await setup.enqueue(group, { i });
    }
    const flight = new InFlight();
    const open = gate();
    const full = gate();
    const done = deferred();
    const slots = 3 * 4;
    let completed = 0;
    const processor: Processor = async (job) => {
      flight.enter(job.group);
      if (flight.total === slots) full.resolve();
      await open.promise;
      await sleep(Number(job.id) % 3);
      flight.leave(job.group);
    };
    // three workers, each with its own connection, as separate processes would have
    for (let i = 0; i < 3; i++) {
      const w = worker(new Queue(redis.client(), setup.name), processor, { concurrency: 4 });
      w.on('completed', () => {
        if (++completed === 4 * perGroup) done.resolve();
      });
    }

    // Every slot fills: each limited group exactly at its limit, the rest for d.
    await full.promise;
    expect(Object.fromEntries(flight.now)).toEqual({ a: 1, b: 2, c: 3, d: 6 });
    expect(await setup.redis.hgetall(setup.keys.gactive)).toEqual({
      a: '1',
      b: '2',
      c: '3',
      d: '6',
    });
    expect(await setup.ring()).toEqual(['d']);

    open.resolve();
    await done.promise;
    expect(flight.peak.get('a')).toBe(1);
    expect(flight.peak.get('b')).toBe(2);
    expect(flight.peak.get('c')).toBe(3);
    expect((await setup.stats()).completed).toBe(4 * perGroup);
    expect(await setup.redis.hgetall(setup.keys.gactive)).toEqual({});
  });

  it('completes a job whose handler resolves', async () => {
    const q = queue();
    const enqueued = await q.enqueue('g', { hello: 'world' });
    const seen: Job[] = [];
    const w = worker(q, async (job) => {
      seen.push(job);
    });
    const [completed] = (await once(w, 'completed')) as [Job];
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      id: enqueued.id,
      payload: { hello: 'world' },
      state: 'ACTIVE',
    });
    expect(completed).toMatchObject({ id: enqueued.id, state: 'COMPLETED', attempts: 1 });
    // Kept by the default completed retention, as the event says it ended.
    expect(await q.job(enqueued.id)).toMatchObject({
      state: 'COMPLETED',
      finishedAt: completed.finishedAt,
      token: null,
    });
    expect((await q.stats()).completed).toBe(1);
    expect(await q.group('g')).toMatchObject({ active: 0, pending: 0 });
  });

  it('retries a job whose handler throws, keeping the error as lastError', async () => {
    const q = queue();
    const job = await q.enqueue('g', null, { maxAttempts: 2 });
    const calls: Job[] = [];
    const w = worker(q, async (j) => {
      calls.push(j);
      if (j.attempts === 1) throw new Error('boom on the first try');
    });
    const failed = once(w, 'failed') as Promise<[Job, Error]>;
    const completed = once(w, 'completed') as Promise<[Job]>;
    const [retried, error] = await failed;
    expect(error.message).toBe('boom on the first try');
    expect(retried).toMatchObject({
      id: job.id,
      state: 'PENDING',
      attempts: 1,
      lastError: 'boom on the first try',
    });
    await completed;
    expect(calls.map((j) => [j.attempts, j.lastError])).toEqual([
      [1, null],
      [2, 'boom on the first try'],
    ]);
    expect((await q.stats()).retried).toBe(1);
  });

  it('buries a job whose handler throws on its last attempt; lastError is kept', async () => {
    const q = queue();
    const job = await q.enqueue('g', null, { maxAttempts: 1 });
    const w = worker(q, async () => {
      throw new Error('always fails');
    });
    const [dead] = (await once(w, 'failed')) as [Job, Error];
    expect(dead).toMatchObject({ id: job.id, state: 'DEAD', lastError: 'always fails' });
    expect(await q.job(job.id)).toMatchObject({ state: 'DEAD', lastError: 'always fails' });
    expect(await q.redis.zscore(q.keys.dead, job.id)).not.toBeNull();
    expect(await q.group('g')).toMatchObject({ active: 0, pending: 0 });
  });

  it('extends the lease while a handler outlives it, so the reaper leaves the job alone', async () => {
    const q = queue();
    const leaseMs = 300;
    const job = await q.enqueue('g');
    const started = deferred<[Job, AbortSignal]>();
    const finish = gate();
    const w = worker(
      q,
      async (j, signal) => {
        started.resolve([j, signal]);
        await finish.promise;
      },
      // Reaped by hand below; the worker's own reaper would hide what those calls find.
      { leaseMs, reaper: false },
    );
    let lost = false;
    w.on('leaseLost', () => {
      lost = true;
    });
    const [claimed, signal] = await started.promise;
    const firstDeadline = claimed.leaseUntil as number;

    // Run the reaper until the Redis clock is three leases past the first deadline: without
    // extension the job would have been reaped at the first call after that deadline.
    let reaped = 0;
    let deadline = firstDeadline;
    await waitFor('three lease lengths to pass', async () => {
      reaped += await q.reap();
      deadline = Number(await q.redis.zscore(q.keys.active, job.id));
      return (await redisMs(q.redis)) > firstDeadline + 3 * leaseMs;
    });
    expect(reaped).toBe(0);
    expect(deadline).toBeGreaterThan(firstDeadline + 2 * leaseMs);
    expect(await q.job(job.id)).toMatchObject({ state: 'ACTIVE', token: claimed.token });
    expect(signal.aborted).toBe(false);

    finish.resolve();
    const [completed] = (await once(w, 'completed')) as [Job];
    expect(completed).toMatchObject({ id: job.id, attempts: 1 });
    expect(lost).toBe(false);
  });

  it('parks on the wake list and wakes at once on each kind of re-ring', async () => {
    const q = queue('rm-park');
    const admin = redis.client();
    // Before the worker exists, an outside consumer takes g4's only permit; g4 has more work.
    await q.setLimit('g4', 1);
    await q.enqueue('g4', { n: 4 });
    const outside = await q.claim();
    expect(outside?.payload).toEqual({ n: 4 });
    await q.enqueue('g4', { n: 5 });
    await admin.del(q.keys.wake);

    const next = { started: deferred<Job>() };
    const w = worker(q, async (job) => next.started.resolve(job), { parkTimeoutMs: PARK_MS });
    let starts = 0;
    w.on('completed', () => starts++);
    /** With the worker parked, run `cause` and measure until the worker starts a job. */
    const wakeBy = async (what: string, cause: () => Promise<unknown>): Promise<Job> => {
      await parked(admin, 'rm-park');
      next.started = deferred<Job>();
      const t0 = performance.now();
      await cause();
      const job = await within(PROMPT_MS, `a job after ${what}`, next.started.promise);
      const ms = performance.now() - t0;
      expect(ms, `woken by ${what} after ${Math.round(ms)} ms`).toBeLessThan(PROMPT_MS);
      await waitFor('the job to complete', async () =>
        (await q.redis.zscore(q.keys.active, job.id)) === null ? true : undefined,
      );
      return job;
    };

    // a completion (by someone else) that frees a permit
    const complete = () => q.complete(outside?.id ?? '', outside?.token ?? '');
    expect((await wakeBy('complete', complete)).payload).toEqual({ n: 5 });

    // an enqueue into an empty group
    expect((await wakeBy('enqueue', () => q.enqueue('g1', { n: 1 }))).payload).toEqual({ n: 1 });

    // a raised limit (the group had work but limit 0); neither step before it wakes anyone
    await q.setLimit('g2', 0);
    await q.enqueue('g2', { n: 2 });
    expect((await wakeBy('setLimit', () => q.setLimit('g2', 1))).payload).toEqual({ n: 2 });

    // a resume
    await q.pause('g3');
    await q.enqueue('g3', { n: 3 });
    expect((await wakeBy('resume', () => q.resume('g3'))).payload).toEqual({ n: 3 });

    await waitFor('four completions', () => starts === 4);
  });

  it('passes a wake on, so one re-ring wakes as many parked workers as it has work for', async () => {
    const setup = queue();
    const admin = redis.client();
    const started: Job[] = [];
    const both = deferred();
    const release = gate();
    for (const name of ['rm-wa', 'rm-wb']) {
      const q = new Queue(redis.client({ connectionName: name }), setup.name);
      worker(
        q,
        async (job) => {
          started.push(job);
          if (started.length === 2) both.resolve();
          await release.promise;
        },
        { parkTimeoutMs: PARK_MS },
      );
    }
    await parked(admin, 'rm-wa');
    await parked(admin, 'rm-wb');
    await setup.pause('g');
    await setup.enqueue('g', { n: 1 });
    await setup.enqueue('g', { n: 2 });
    await admin.del(setup.keys.wake);
    const t0 = performance.now();
    await setup.resume('g'); // one re-ring: exactly one wake token for two jobs
    await within(PROMPT_MS, 'both workers to start a job', both.promise);
    expect(performance.now() - t0).toBeLessThan(PROMPT_MS);
    expect(started.map((j) => j.payload)).toEqual([{ n: 1 }, { n: 2 }]);
    release.resolve();
  });

  it('a woken worker claims with one call, not a second one behind it that finds nothing', async () => {
    const q = queue('rm-probe');
    const admin = redis.client();
    let started = false;
    const w = worker(
      q,
      async () => {
        started = true;
      },
      { concurrency: 8, parkTimeoutMs: PARK_MS },
    );
    const calls = recordCalls(q);
    await parked(admin, 'rm-probe');
    const before = calls.length;
    const sentBeforeStart: Call[] = [];
    const real = q.completeAndClaim;
    q.completeAndClaim = (completions, options) => {
      if (!started) sentBeforeStart.push({ done: [], claim: options?.claim ?? 1 });
      return real(completions, options);
    };
    const job = await q.enqueue('g', { n: 1 });
    const [completed] = (await once(w, 'completed')) as [Job];
    expect(completed.id).toBe(job.id);
    // The wake's one claim (half the slots) took the job; nothing else was sent before it ran.
    expect(sentBeforeStart).toEqual([{ done: [], claim: 4 }]);
    expect(calls.slice(before)[0]).toMatchObject({ done: [], claim: 4, claimed: [job.id] });
  });

  it('a completion claims the job its released permit makes claimable, in the same call', async () => {
    const q = queue('rm-carry');
    const admin = redis.client();
    await q.setLimit('g', 1);
    const first = await q.enqueue('g', { n: 1 });
    const second = await q.enqueue('g', { n: 2 });
    const release = gate();
    const calls = recordCalls(q);
    const w = worker(
      q,
      async (job) => {
        if (job.id === first.id) await release.promise;
      },
      { concurrency: 2, parkTimeoutMs: PARK_MS },
    );
    const completed: string[] = [];
    w.on('completed', (job) => completed.push(job.id));
    // The first job runs; g is at its limit, so the worker parks with a slot free.
    await parked(admin, 'rm-carry');
    release.resolve();
    await waitFor('both jobs to complete', () => completed.length === 2);
    // No wake and no claim round trip between the two: the completion of the first claimed
    // the second (the script completes before it claims).
    const completing = calls.find((call) => call.done.includes(first.id));
    expect(completing).toMatchObject({ claim: 1, claimed: [second.id] });
  });

  it('a claim answer older than a wake does not park the worker again on the taken token', async () => {
    const q = queue('rm-stale');
    const admin = redis.client();
    // The worker's blocking connection, to see when a park has ended.
    const woke: Deferred[] = [];
    const client = q.redis as Redis;
    const duplicate = client.duplicate.bind(client);
    client.duplicate = (options) => {
      const blocking = duplicate(options);
      const blpop = blocking.blpop.bind(blocking) as (...a: unknown[]) => Promise<unknown>;
      (blocking as unknown as { blpop: typeof blpop }).blpop = async (...a) => {
        const token = await blpop(...a);
        woke.shift()?.resolve();
        return token;
      };
      return blocking;
    };
    const a = await q.enqueue('ga', { n: 1 });
    const release = gate();
    const answer = gate();
    // Hold the answer of the call that completes `a` (its claim finds the ring empty).
    recordCalls(q, (call) => (call.done.includes(a.id) ? answer.promise : undefined));
    const started: string[] = [];
    worker(
      q,
      async (job) => {
        started.push(job.id);
        if (job.id === a.id) await release.promise;
      },
      { concurrency: 2, parkTimeoutMs: PARK_MS },
    );
    await parked(admin, 'rm-stale');
    release.resolve();
    await waitFor('the completion of a to run', async () =>
      (await q.redis.zscore(q.keys.active, a.id)) === null ? true : undefined,
    );
    // A job enqueued now wakes the parked worker while that answer is still held back.
    const woken = deferred();
    woke.push(woken);
    const b = await q.enqueue('gb', { n: 2 });
    await woken.promise;
    await nextTurn(); // the worker has handled its wake
    answer.resolve();
    // The held "ring empty" predates the wake: the worker claims again and runs b. Taken as
    // current, it would park the worker on the taken token until PARK_MS: any bound well below
    // that tells the two apart, so a generous one (a loaded machine) does.
    await waitFor('b to start', () => started.includes(b.id), PARK_MS / 4);
  });

  it('close() stops claiming, lets the jobs in flight finish, then resolves', async () => {
    const q = queue('rm-close');
    for (let i = 0; i < 5; i++) await q.enqueue('g', { i });
    const started: Job[] = [];
    const two = deferred();
    const release = gate();
    const completed: Job[] = [];
    const w = worker(
      q,
      async (job) => {
        started.push(job);
        if (started.length === 2) two.resolve();
        await release.promise;
      },
      { concurrency: 2, parkTimeoutMs: PARK_MS },
    );
    w.on('completed', (job) => completed.push(job));
    await two.promise;

    let closed = false;
    const closing = w.close().then(() => {
      closed = true;
    });
    // Several round trips later, the handlers still hold their jobs and close() waits.
    for (let i = 0; i < 5; i++) await q.counts();
    expect(closed).toBe(false);
    expect(await q.redis.zcard(q.keys.active)).toBe(2);

    release.resolve();
    await closing;
    // When close() resolves, both completions are recorded and nothing else was claimed.
    expect(completed.map((j) => j.payload)).toEqual([{ i: 0 }, { i: 1 }]);
    expect((await q.stats()).completed).toBe(2);
    expect(started).toHaveLength(2);
    expect(await q.group('g')).toMatchObject({ active: 0, pending: 3 });
    expect(await blockedClients(redis.client(), 'rm-close')).toBe(0);
  });

  it('close({ timeoutMs }) gives up a processor that outlives it: signal aborted, job retried now', async () => {
    const q = queue('rm-close-timeout');
    await q.setLimit('g', 1);
    await q.enqueue('g', { stuck: true });
    await q.enqueue('g', { next: true });
    const started = deferred<AbortSignal>();
    const neverEnds = gate();
    const w = worker(
      q,
      async (_job, signal) => {
        started.resolve(signal);
        await neverEnds.promise;
      },
      { parkTimeoutMs: PARK_MS },
    );
    const failed = once(w, 'failed');
    const signal = await started.promise;

    let closed = false;
    const closing = w.close({ timeoutMs: 200 }).then(() => {
      closed = true;
    });
    for (let i = 0; i < 3; i++) await q.counts();
    expect(closed, 'close waits until the timeout').toBe(false);
    await within(PROMPT_MS + 200, 'close() to give up the processor', closing);

    expect(signal.aborted).toBe(true);
    const [job, error] = (await failed) as [Job, Error];
    expect(error.message).toMatch(/closed before the job finished/);
    // Back at the head of its lane with the attempt counted, its permit released at once
    // (no waiting for the lease): the group is serviceable again, the next job untouched.
    expect(job).toMatchObject({ state: 'PENDING', attempts: 1, payload: { stuck: true } });
    expect(await q.group('g')).toMatchObject({ active: 0, pending: 2, onRing: true });
    expect((await q.claim())?.id).toBe(job.id);
    // Its processor ending later changes nothing.
    neverEnds.resolve();
    await q.counts();
    expect((await q.stats()).completed).toBe(0);
  });

  it('close({ timeoutMs }) is a bound while Redis does not answer; a claim that comes back later is given back unrun', async () => {
    const q = queue('rm-close-paused');
    await q.enqueue('g', { n: 1 });
    let runs = 0;
    const w = worker(
      q,
      async (_job, signal) => {
        runs += 1;
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      },
      { concurrency: 2, autorun: false, parkTimeoutMs: PARK_MS },
    );
    const failed = once(w, 'failed');
    // Redis holds every client's commands for 1 s: the worker's first claim is on the wire
    // when close() is called, and still is at its deadline.
    await redis.client().client('PAUSE', 1_000, 'ALL');
    void w.run();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const t0 = performance.now();
    await within(PROMPT_MS, 'close() to resolve at its deadline', w.close({ timeoutMs: 100 }));
    expect(performance.now() - t0).toBeLessThan(900);
    // The claim comes back after the deadline: its job is given back without running.
    const [job, error] = (await failed) as [Job, Error];
    expect(error.message).toMatch(/closed before the job finished/);
    expect(job).toMatchObject({ state: 'PENDING', attempts: 1, payload: { n: 1 } });
    expect(runs).toBe(0);
    expect(await q.group('g')).toMatchObject({ active: 0, pending: 1, onRing: true });
  });

  it('close() refuses a bad timeoutMs with BAD_USER_INPUT, and closes nothing', async () => {
    const q = queue();
    const w = worker(q, async () => {}, { parkTimeoutMs: PARK_MS });
    for (const timeoutMs of [0, -1, Number.NaN, 1.5e9]) {
      await expect(w.close({ timeoutMs })).rejects.toMatchObject({
        code: ErrorCode.BAD_USER_INPUT,
      });
    }
    await q.enqueue('g', { after: true });
    await waitFor('the worker to still run jobs', async () =>
      (await q.stats()).completed === 1 ? true : undefined,
    );
  });

  it('a lost connection ends a park: cut more often than its timeout, it still runs a job when due', async () => {
    // ioredis sends a BLPOP cut by a lost connection again once reconnected, with its whole
    // timeout: a park of 400 ms cut every 100 ms would never end, nor the job ever run.
    const q = queue('rm-cut');
    const started = deferred<Job>();
    worker(q, async (job) => started.resolve(job), { parkTimeoutMs: 400, reaper: false });
    const admin = redis.client();
    await parked(admin, 'rm-cut');
    const cutter = setInterval(async () => {
      const list = (await admin.client('LIST')) as string;
      for (const line of list.split('\n')) {
        const id = /^id=(\d+) /.exec(line)?.[1];
        if (id && line.includes(' name=rm-cut ') && / flags=[A-Za-z]*b/.test(line)) {
          await admin.client('KILL', 'ID', id).catch(() => undefined);
        }
      }
    }, 100);
    try {
      const job = await q.enqueue('g', null, { delayMs: 300 });
      const ran = await within(PROMPT_MS, 'the delayed job to run', started.promise);
      expect(ran.id).toBe(job.id);
    } finally {
      clearInterval(cutter);
    }
  });

  it('a worker that opened its connection (lazy, as from a URL) parks in BLPOP and wakes at once', async () => {
    const name = `worker-${RUN}-${queues++}`;
    const { hostname: host, port } = new URL(redis.url);
    const started = deferred<Job>();
    const w = new Worker(name, async (job) => started.resolve(job), {
      connection: { host, port: Number(port), connectionName: 'rm-lazy' },
      parkTimeoutMs: PARK_MS,
    });
    w.on('error', (error) => errors.push(error));
    workers.push(w);
    await parked(redis.client(), 'rm-lazy');
    const job = await new Queue(redis.client(), name).enqueue('g');
    expect((await within(PROMPT_MS, 'the job to run', started.promise)).id).toBe(job.id);
  });

  it('close() of a parked worker returns without waiting for the park timeout', async () => {
    const q = queue('rm-idle');
    const w = worker(q, async () => {}, { parkTimeoutMs: PARK_MS });
    await parked(redis.client(), 'rm-idle');
    const t0 = performance.now();
    await w.close();
    expect(performance.now() - t0).toBeLessThan(PROMPT_MS);
    // and a job enqueued afterwards stays pending
    await q.enqueue('g');
    expect(await q.group('g')).toMatchObject({ active: 0, pending: 1 });
  });

  it("aborts a processor's signal when an extension finds its lease lost", async () => {
    // The job is reaped and claimed elsewhere while it runs: the next extension is refused
    // (LEASE_LOST), which aborts the signal of the processor that declared one.
    const q = queue();
    const started = deferred<[Job, AbortSignal]>();
    const aborted = deferred<unknown>();
    const w = worker(
      q,
      async (job, signal) => {
        started.resolve([job, signal]);
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        aborted.resolve(signal.reason);
      },
      // The test reaps by hand, so it knows when: the worker's own reaper stays off.
      { leaseMs: 100, extendEveryMs: 200, parkTimeoutMs: PARK_MS, reaper: false },
    );
    const lost = once(w, 'leaseLost');
    await q.enqueue('s');
    const [job, signal] = await started.promise;
    expect(signal.aborted).toBe(false);
    await waitFor('the lease to expire and be reaped', async () =>
      (await q.reap()) === 1 ? true : undefined,
    );
    const reclaimed = await q.claim();
    expect(reclaimed?.id).toBe(job.id);
    const reason = await within(PROMPT_MS, 'the signal to abort', aborted.promise);
    expect(reason).toMatchObject({ code: ErrorCode.LEASE_LOST });
    const [lostJob] = (await lost) as [Job];
    expect(lostJob.token).toBe(job.token);
    // The new holder's lease is untouched by the stale run.
    expect(await q.job(job.id)).toMatchObject({ state: 'ACTIVE', token: reclaimed?.token });
  });

  it('counts a handler whose lease was lost against concurrency until it returns', async () => {
    // No extension, a short lease: the first run of job J loses its lease while it runs, J is
    // reaped and this same worker claims it again. Both runs are in flight at once.
    const q = queue();
    const first = deferred<Job>();
    const second = deferred<Job>();
    const releaseFirst = gate();
    const releaseRest = gate();
    const flight = new InFlight();
    const w = worker(
      q,
      async (job) => {
        flight.enter('all');
        try {
          if (job.group === 'j' && job.attempts === 1) {
            first.resolve(job);
            await releaseFirst.promise;
          } else {
            if (job.group === 'j') second.resolve(job);
            await releaseRest.promise;
          }
        } finally {
          flight.leave('all');
        }
      },
      {
        concurrency: 2,
        leaseMs: 100,
        extendEveryMs: PARK_MS,
        parkTimeoutMs: PARK_MS,
        reaper: false,
      },
    );
    const lost: Job[] = [];
    w.on('leaseLost', (job) => lost.push(job));

    const j = await q.enqueue('j');
    const run1 = await first.promise;
    await waitFor('the lease to expire and be reaped', async () =>
      (await q.reap()) === 1 ? true : undefined,
    );
    const run2 = await second.promise;
    expect(run2.token).not.toBe(run1.token);
    expect(flight.total).toBe(2);
    expect(w.active).toBe(2);

    // The stale run returns: its outcome is refused (I5), its slot frees, the new run goes on.
    const leaseLost = once(w, 'leaseLost');
    releaseFirst.resolve();
    await leaseLost;
    expect(lost.map((x) => x.token)).toEqual([run1.token]);
    await waitFor('the stale run to give its slot back', () => w.active < 2);
    expect(w.active).toBe(1);
    expect(flight.total).toBe(1);
    expect(await q.job(j.id)).toMatchObject({ state: 'ACTIVE', token: run2.token });

    // The freed slot takes new work; the limit of 2 held throughout.
    const k = await q.enqueue('k');
    await waitFor('k to be claimed', async () => (await q.job(k.id))?.state === 'ACTIVE');
    expect(flight.peakTotal).toBe(2);
    releaseRest.resolve();
    await waitFor('everything to complete', async () => (await q.stats()).completed === 2);
  });

  it('takes a processor that returns a plain value or nothing as a success', async () => {
    const q = queue();
    const seen: string[] = [];
    // Plain JavaScript callers are not held to `Promise`; a throw is still a failure.
    const w = worker(q, ((job: Job) => {
      seen.push(job.id);
      if (job.group === 'boom') throw new Error('sync throw');
      return job.group === 'value' ? 42 : undefined;
    }) as unknown as Processor);
    const a = await q.enqueue('value');
    const b = await q.enqueue('nothing');
    const c = await q.enqueue('boom', null, { maxAttempts: 1 });
    await waitFor('all three to settle', async () => {
      const s = await q.stats();
      return s.completed === 2 && s.dead === 1;
    });
    expect(seen.sort()).toEqual([a.id, b.id, c.id].sort());
    expect(await q.job(c.id)).toMatchObject({ state: 'DEAD', lastError: 'sync throw' });
    expect(await q.counts()).toMatchObject({ active: 0, pending: 0 });
    await w.close();
  });

  it('rejects bad options with BAD_USER_INPUT', () => {
    const q = queue();
    const bad: WorkerOptions[] = [
      { concurrency: 0 },
      { concurrency: 1.5 },
      { leaseMs: 0 },
      { extendEveryMs: Number.NaN },
      { extendEveryMs: -1 },
      { extendEveryMs: 0.5 },
      { parkTimeoutMs: Number.NaN },
      { parkTimeoutMs: 0 },
      { parkTimeoutMs: 86_400_001 },
      { reaper: { intervalMs: 0 } },
      { reaper: { intervalMs: Number.NaN } },
      { reaper: { batch: 0 } },
      { reaper: { batch: 10_001 } },
    ];
    for (const options of bad) {
      expect(
        () => new Worker(q, async () => {}, { ...options, autorun: false }),
        JSON.stringify(options),
      ).toThrow(expect.objectContaining({ code: ErrorCode.BAD_USER_INPUT }));
    }
  });

  it('refuses a processor that is not a function with BAD_USER_INPUT, before claiming anything', async () => {
    const q = queue();
    const job = await q.enqueue('g', { n: 1 });
    for (const processor of [5, 'run', null, undefined, {}, [async () => {}]]) {
      expect(() => new Worker(q, processor as unknown as Processor), String(processor)).toThrow(
        expect.objectContaining({
          code: ErrorCode.BAD_USER_INPUT,
          argument: 'processor',
          message: expect.stringMatching(/^processor: must be a function/),
        }),
      );
    }
    // Nothing was claimed: the job is still pending, not run into DEAD.
    expect(await q.job(job.id)).toMatchObject({ state: 'PENDING', attempts: 0 });
  });

  it('without an error listener, a failed call ends the process instead of retrying without pause', async () => {
    const q = queue();
    const child = fork(NO_LISTENER_CHILD, [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, RINGMASTER_CHILD_REDIS: redis.url, RINGMASTER_CHILD_QUEUE: q.name },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = once(child, 'exit');
    await within(PROMPT_MS * 5, 'the child to park', once(child, 'message'));
    // Wake it: its next call meets the closed connection.
    await q.redis.lpush(q.keys.wake, '1');
    const [code] = (await within(PROMPT_MS * 5, 'the child to exit', exited)) as [number | null];
    expect(code, stderr).not.toBe(0);
    expect(stderr).toMatch(/Connection is closed|Stream isn't writeable|max retries/i);
  });

  it('a worker killed mid-job: the lease expires, one permit is released, another worker reruns it', async () => {
    const q = queue();
    await q.setLimit('k', 1);
    const job1 = await q.enqueue('k', { n: 1 });
    const job2 = await q.enqueue('k', { n: 2 });

    const child = fork(CHILD, [], {
      execArgv: ['--import', 'tsx'],
      env: {
        ...process.env,
        RINGMASTER_CHILD_REDIS: redis.url,
        RINGMASTER_CHILD_QUEUE: q.name,
        RINGMASTER_CHILD_LEASE_MS: '300',
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(child);
    const started = await new Promise<{ started: string; token: string }>((resolve, reject) => {
      child.on('message', (m: { started?: string; token?: string; error?: string }) => {
        if (m.started) resolve(m as { started: string; token: string });
        if (m.error) reject(new Error(`child worker: ${m.error}`));
      });
      child.once('exit', (code) => reject(new Error(`child exited early (${code})`)));
    });
    expect(started.started).toBe(job1.id);
    expect(await q.group('k')).toMatchObject({ active: 1, pending: 1, state: 'SATURATED' });

    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    const [, signal] = await exited;
    expect(signal).toBe('SIGKILL');

    // Nothing extends the lease now. The reaper takes it back once, and only once.
    let reaped = 0;
    await waitFor('the reaper to take the lease back', async () => {
      reaped += await q.reap();
      return reaped > 0;
    });
    expect(reaped).toBe(1);
    expect(await q.reap()).toBe(0);
    expect(await q.group('k')).toMatchObject({ active: 0, pending: 2, onRing: true });
    expect(await q.redis.hget(q.keys.gactive, 'k')).toBeNull();
    expect(await q.stats()).toMatchObject({ reaped: 1, claimed: 1 });
    expect(await q.redis.zrange(q.keys.lane('k'), 0, -1)).toEqual([job1.id, job2.id]);
    // the dead worker's token is worthless now (I5)
    await expect(q.complete(job1.id, started.token)).rejects.toMatchObject({
      code: ErrorCode.LEASE_LOST,
    });

    // Another worker runs it again, then the job behind it, one at a time (limit 1).
    const runs: Job[] = [];
    const flight = new InFlight();
    const done = deferred();
    const w = worker(
      q,
      async (job) => {
        flight.enter('k');
        runs.push(job);
        await sleep(5);
        flight.leave('k');
      },
      { concurrency: 4 },
    );
    w.on('completed', () => {
      if (runs.length === 2) done.resolve();
    });
    await done.promise;
    expect(runs.map((r) => [r.id, r.attempts, r.lastError])).toEqual([
      [job1.id, 2, 'lease expired'],
      [job2.id, 1, null],
    ]);
    expect(flight.peak.get('k')).toBe(1);
    await waitFor('both completions', async () => (await q.stats()).completed === 2);
    expect(await q.group('k')).toMatchObject({ active: 0, pending: 0 });
  });
});

describe('Worker when Redis goes away', () => {
  const redis = useTestRedis();

  it('rides out a Redis restart (data and scripts gone) and runs the next job', async ({
    skip,
  }) => {
    if (!redis.redis.canControlProcess) skip();
    const client = redis.client({ connectionName: 'rm-outage' });
    const q = new Queue(client, `outage-${RUN}`);
    const errors: Error[] = [];
    const done = deferred<Job>();
    const w = new Worker(q, async (job) => done.resolve(job), { parkTimeoutMs: 200 });
    w.on('error', (error) => errors.push(error));
    try {
      await parked(redis.client(), 'rm-outage');
      await client.set('marker', 'before the restart');
      await redis.redis.kill('SIGKILL');
      await redis.redis.restart();
      // A fresh Redis (no data, no scripts loaded): the next job must still be processed.
      expect(await client.get('marker')).toBeNull();
      const job = await q.enqueue('g', { after: 'restart' });
      const ran = await within(15_000, 'the job to run after the restart', done.promise);
      expect(ran.id).toBe(job.id);
      await waitFor('the completion', async () => (await q.stats()).completed === 1, 10_000);
      // ioredis queues commands while Redis is down, so a short outage raises no error
      expect(errors).toEqual([]);
    } finally {
      await w.close();
    }
  }, 40_000);

  it("says where and why in 'error' when its park fails: REDIS_UNAVAILABLE at the address", async ({
    skip,
  }) => {
    if (!redis.redis.canControlProcess) skip();
    // No retries: a command in flight when the connection drops fails at once.
    const client = redis.client({ connectionName: 'rm-park', maxRetriesPerRequest: 0 });
    const q = new Queue(client, `park-${RUN}`);
    const w = new Worker(q, async () => null, { parkTimeoutMs: 60_000, reaper: false });
    const failed = deferred<Error>();
    w.on('error', (error) => failed.resolve(error));
    try {
      await parked(redis.client(), 'rm-park');
      await redis.redis.kill('SIGKILL');
      const error = await within(15_000, "the Worker's error", failed.promise);
      expect(error).toBeInstanceOf(RingmasterError);
      expect((error as RingmasterError).code).toBe(ErrorCode.REDIS_UNAVAILABLE);
      const { port } = client.options;
      expect(error.message).toMatch(new RegExp(`^Redis is unavailable at [^ ]+:${port}\\b`));
    } finally {
      await w.close();
      await redis.redis.restart();
    }
  }, 40_000);
});
