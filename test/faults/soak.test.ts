/**
 * Load and soak: one server process (test/fixtures/server-child.ts — the real
 * `buildServer`, with an IPC channel for its memory and event-loop delay), 500 graphql-ws
 * subscribers of `ringChanged` in another process (test/fixtures/subscribers.ts), and a steady
 * GraphQL load from this one — enqueue, claim/complete, setLimit/pause/resume — for SOAK_MS
 * (default 30 s; `SOAK_MS=120000 npx vitest run test/faults/soak.test.ts` for a longer run; 20 s
 * to 120 s, so the test stays under 3 minutes). This is a bounded test, not a benchmark: its assertions
 * are about correctness and flatness, never speed.
 *
 * What must hold:
 * - no request of the load fails;
 * - every subscriber's last event equals the final ring, and none lost its subscription;
 * - the server's retained heap (after full GCs) and Redis' connection count are flat: measured
 *   before, every few seconds during, and after the load, growth stays within a generous bound
 *   for the load's length (a rate: {@link GROWTH_MIB_PER_MINUTE}), so a leak is caught at the
 *   same rate per request whatever SOAK_MS is;
 * - a subscriber that stops reading (its socket paused for 8 s, after the load, while the ring it
 *   watches changes as fast as the server can send its ~250 KB events) costs the server no
 *   memory — conflation holds only the latest state — and, resumed, receives far fewer events
 *   than a reading subscriber did, ending on the latest ring;
 * - a subscriber that never reads again is disconnected by the keep-alive (graphql-ws pings
 *   every 12 s and drops a socket that has not answered by the next one), freeing what it held.
 */
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Queue, Worker } from '../../src/lanes/index.js';
import {
  ClaimDocument,
  CompleteDocument,
  EnqueueDocument,
  PauseGroupDocument,
  ResumeGroupDocument,
  SetLimitDocument,
} from '../gql/graphql.js';
import {
  assertSound,
  type Child,
  drained,
  forkFixture,
  hold,
  Ledger,
  mib,
  post,
  report,
  until,
  useScenario,
  type Wire,
} from './support.js';

const SOAK_MS = Math.min(Math.max(Number(process.env.SOAK_MS ?? 30_000), 20_000), 120_000);
/**
 * Retained growth allowed per minute of load (MiB), during it and left after it: the load runs
 * at a fixed pace, so a leak grows with the load's length (about 3 MiB in all over 60 s runs).
 */
const GROWTH_MIB_PER_MINUTE = { during: 64, after: 32 };
const growthBound = (perMinute: number) => (perMinute * SOAK_MS) / 60_000;
const SUBSCRIBERS = Number(process.env.SOAK_SUBSCRIBERS ?? 500);
const QUEUE = 'soak';
const GROUPS = Array.from({ length: 30 }, (_, i) => `tenant-${String(i).padStart(2, '0')}`);
/** The ring the paused subscriber watches: 1000 groups with 240-byte ids, ~250 KB per event. */
const WIDE = 'wide';
const WIDE_GROUPS = Array.from({ length: 1_000 }, (_, i) => `w${i}-`.padEnd(240, 'x'));
/** A paused socket must answer graphql-ws' keep-alive ping within 12 s, or it is dropped. */
const PAUSE_MS = 8_000;
const SAMPLE_EVERY_MS = 5_000;

const RING_QUERY =
  'subscription ($queue: String!) { ringChanged(queue: $queue) { ring added removed reason } }';

/** A graphql-ws subscriber on a raw `ws` socket, so a test can stop reading it (pause). */
class RawSubscriber {
  readonly ws: WebSocket;
  received = 0;
  bytes = 0;
  ring: string[] | null = null;
  closed = false;
  readonly subscribed: Promise<void>;

  constructor(url: string, queue: string) {
    this.ws = new WebSocket(url, 'graphql-transport-ws');
    let subscribed!: () => void;
    this.subscribed = new Promise((resolve) => {
      subscribed = resolve;
    });
    this.ws.on('open', () => this.ws.send(JSON.stringify({ type: 'connection_init' })));
    this.ws.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as {
        type: string;
        payload?: { data?: { ringChanged?: { ring: string[] } } };
      };
      if (message.type === 'connection_ack') {
        this.ws.send(
          JSON.stringify({
            id: '1',
            type: 'subscribe',
            payload: { query: RING_QUERY, variables: { queue } },
          }),
        );
      } else if (message.type === 'next') {
        this.received++;
        this.bytes += data.length;
        this.ring = message.payload?.data?.ringChanged?.ring ?? null;
        subscribed();
      }
    });
    this.ws.on('close', () => {
      this.closed = true;
    });
    this.ws.on('error', () => {});
  }

  private get socket(): Socket {
    return (this.ws as unknown as { _socket: Socket })._socket;
  }

  /** Stop reading: nothing more is taken from the kernel; TCP flow control does the rest. */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  close(): void {
    this.ws.terminate();
  }
}

interface ServerSample {
  at: number;
  memory: NodeJS.MemoryUsage;
  cpu: NodeJS.CpuUsage;
  loopDelay: { p50: number; p99: number; max: number };
  sockets: number;
  feed: { listeners: number; ringReads: number };
  redisClients: number;
}

interface SubscriberReport {
  events: number;
  ring: string[] | null;
  reasons: Record<string, number>;
  error: string | null;
  completed: boolean;
}

/** Ask a fixture with IPC and wait for its answer of the same type. */
async function ask<T>(child: Child, type: string, timeoutMs = 30_000): Promise<T> {
  const answer = child.next(type, timeoutMs);
  child.send({ type });
  return (await answer) as T;
}

/** Heap plus memory held outside it (buffers), after full collections (bytes). */
const retained = (s: ServerSample) => s.memory.heapUsed + s.memory.external;
const sameRing = (a: readonly string[] | null, b: readonly string[]) =>
  JSON.stringify(a) === JSON.stringify(b);

/**
 * The steady GraphQL load on the main queue until `deadline`: ~20 enqueues/s, two loops of
 * ~10 claim + complete/s, ~4 steering mutations/s (limits moved, groups paused and resumed).
 * Every acknowledged enqueue and completion goes to `ledger`; every failure to `errors`.
 */
function startLoad(endpoint: string, ledger: Ledger, deadline: number) {
  const errors: string[] = [];
  const ops = { enqueue: 0, claim: 0, complete: 0, steer: 0 };
  const pausedGroups = new Set<string>();
  const ok = <T>(what: string, result: { status: number; body: Wire<T> }): T | null => {
    if (result.status !== 200 || result.body.errors || result.body.data == null) {
      errors.push(`${what}: ${result.status} ${JSON.stringify(result.body.errors)}`);
      return null;
    }
    return result.body.data;
  };
  const paced = async (periodMs: number, step: (n: number) => Promise<void>) => {
    for (let n = 0; Date.now() < deadline; n++) {
      const t = Date.now();
      await step(n).catch((error: unknown) => errors.push(String(error)));
      await hold(Math.max(0, periodMs - (Date.now() - t)));
    }
  };
  const enqueue = paced(50, async (n) => {
    const group = GROUPS[(n * 7) % GROUPS.length] as string;
    const vars = { queue: QUEUE, group, payload: { n } };
    const data = ok('enqueue', await post(endpoint, EnqueueDocument, vars));
    if (!data?.enqueue) return;
    ledger.enqueued.add(data.enqueue.id);
    ops.enqueue++;
  });
  const work = [0, 1].map(() =>
    paced(100, async () => {
      const job = ok('claim', await post(endpoint, ClaimDocument, { queue: QUEUE }))?.claim;
      if (!job?.token) return;
      ops.claim++;
      const vars = { queue: QUEUE, id: job.id, token: job.token };
      if (!ok('complete', await post(endpoint, CompleteDocument, vars))) return;
      ops.complete++;
      ledger.record({ type: 'completed', id: job.id, attempts: job.attempts });
    }),
  );
  const steer = paced(250, async (n) => {
    const group = GROUPS[(n * 11) % GROUPS.length] as string;
    if (n % 3 === 0) {
      const vars = { queue: QUEUE, group, limit: 1 + (n % 5) };
      ok('setLimit', await post(endpoint, SetLimitDocument, vars));
    } else if (pausedGroups.delete(group)) {
      ok('resume', await post(endpoint, ResumeGroupDocument, { queue: QUEUE, group }));
    } else {
      ok('pause', await post(endpoint, PauseGroupDocument, { queue: QUEUE, group }));
      pausedGroups.add(group);
    }
    ops.steer++;
  });
  const done = Promise.all([enqueue, ...work, steer]).then(async () => {
    // Leave no group paused, so the final ring holds every group with work.
    for (const group of pausedGroups) {
      ok('resume', await post(endpoint, ResumeGroupDocument, { queue: QUEUE, group }));
    }
  });
  return { done, ops, errors };
}

/**
 * The slow-subscriber phase: `paused` stops reading while the wide ring (the one it and
 * `control` watch) changes as fast as claims rotate it, for PAUSE_MS; then it reads again.
 * `sample` reads the server's memory before and at the end of the pause.
 */
async function slowSubscriberPhase(
  wide: Queue,
  paused: RawSubscriber,
  control: RawSubscriber,
  sample: () => Promise<ServerSample>,
) {
  const beforePause = await sample();
  const controlBefore = control.received;
  paused.pause();
  let churning = true;
  let wideClaims = 0;
  const churn = (async () => {
    while (churning) {
      const job = await wide.claim({ leaseMs: 60_000 });
      if (job?.token) {
        await wide.complete(job.id, job.token);
        wideClaims++;
      }
      await hold(5);
    }
  })();
  await hold(PAUSE_MS - 1_500);
  churning = false;
  await churn;
  const wideRing = await wide.ring();
  await until('the reading subscriber to have the final wide ring', () =>
    sameRing(control.ring, wideRing),
  );
  const endOfPause = await sample();
  const controlDuringPause = control.received - controlBefore;
  const pausedBeforeResume = paused.received;

  paused.resume();
  const resumedAt = Date.now();
  await until(
    'the resumed subscriber to get the latest wide ring',
    () => sameRing(paused.ring, wideRing),
    { timeoutMs: 20_000, intervalMs: 10 },
  );
  const catchUpMs = Date.now() - resumedAt;
  // What the kernel's buffers held arrived first, then the latest ring; let stragglers land.
  await hold(500);
  return {
    beforePause,
    endOfPause,
    figures: {
      wideClaims,
      eventBytes: Math.round(control.bytes / control.received),
      controlDuringPause,
      pausedAfterResume: paused.received - pausedBeforeResume,
      catchUpMs,
      retainedMiBBeforePause: mib(retained(beforePause)),
      retainedMiBEndOfPause: mib(retained(endOfPause)),
    },
  };
}

describe('soak: 500 subscribers under steady load', () => {
  const { redis } = useScenario();

  it(`stays correct and flat for ${SOAK_MS / 1000} s`, { timeout: SOAK_MS + 150_000 }, async () => {
    const admin = redis.client();
    const queue = new Queue(redis.client(), QUEUE);
    const wide = new Queue(redis.client(), WIDE);

    const server = forkFixture(
      'server-child',
      {
        REDIS_URL: redis.url,
        PORT: '0',
        LOG_LEVEL: 'warn',
        REAP_INTERVAL_MS: '500',
        RESYNC_INTERVAL_MS: '2000',
      },
      { nodeArgs: ['--expose-gc'] },
    );
    const { url } = (await server.message('listening')) as { url: string };
    const endpoint = `${url}/graphql`;
    const wsUrl = endpoint.replace(/^http/, 'ws');
    const sample = async (): Promise<ServerSample> => ({
      at: Date.now(),
      ...(await ask<Omit<ServerSample, 'at' | 'redisClients'>>(server, 'memory')),
      redisClients: ((await admin.client('LIST')) as string).split('\n').filter((l) => l.trim())
        .length,
    });

    // The main queue: limits, and a backlog so the ring is never empty.
    for (const [i, group] of GROUPS.entries()) await queue.setLimit(group, (i % 5) + 1);
    const ledger = new Ledger();
    for (let n = 0; n < 300; n++) {
      const job = await queue.enqueue(GROUPS[n % GROUPS.length] as string, { n });
      ledger.enqueued.add(job.id);
    }
    // The wide queue, churned only while its subscriber is paused: 2 jobs per group.
    for (let i = 0; i < WIDE_GROUPS.length; i += 100) {
      const batch = WIDE_GROUPS.slice(i, i + 100);
      await Promise.all(batch.flatMap((group) => [wide.enqueue(group), wide.enqueue(group)]));
    }

    const connecting = Date.now();
    const subscribers = forkFixture('subscribers', {
      SUB_URL: wsUrl,
      SUB_QUEUE: QUEUE,
      SUB_COUNT: String(SUBSCRIBERS),
    });
    const ready = await subscribers.message('ready', 90_000);
    expect(ready).toMatchObject({ count: SUBSCRIBERS, failed: 0 });
    const connectMs = Date.now() - connecting;
    const paused = new RawSubscriber(wsUrl, WIDE);
    const control = new RawSubscriber(wsUrl, WIDE);
    const abandoned = new RawSubscriber(wsUrl, QUEUE);
    await Promise.all([paused.subscribed, control.subscribed, abandoned.subscribed]);

    const before = await sample();
    expect(before.sockets).toBe(SUBSCRIBERS + 3);

    // ── the load, with samples every few seconds and the slow-subscriber phase ──────────
    const started = Date.now();
    const deadline = started + SOAK_MS;
    const load = startLoad(endpoint, ledger, deadline);
    abandoned.pause(); // stops reading for good
    const samples: ServerSample[] = [];
    const sampler = (async () => {
      for (;;) {
        await hold(Math.min(SAMPLE_EVERY_MS, Math.max(0, deadline - Date.now())));
        if (Date.now() >= deadline) return;
        samples.push(await sample());
      }
    })();
    await load.done;
    await sampler;
    const loadMs = Date.now() - started;

    // ── convergence and the after-picture ───────────────────────────────────────────────
    const finalRing = await queue.ring();
    let last: SubscriberReport[] = [];
    const converging = Date.now();
    await until(
      'every subscriber to have the final ring',
      async () => {
        last = (await ask<{ subscribers: SubscriberReport[] }>(subscribers, 'report')).subscribers;
        return last.every((s) => sameRing(s.ring, finalRing));
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    const convergeMs = Date.now() - converging;
    const after = await sample();
    // The abandoned subscriber is dropped by the keep-alive (within 24 s); nobody else is.
    await until(
      'the abandoned subscriber to be dropped',
      async () => (await ask<{ sockets: number }>(server, 'memory')).sockets === SUBSCRIBERS + 2,
      { timeoutMs: 30_000, intervalMs: 1_000 },
    );
    const firstWithout = samples.find((s) => s.sockets === SUBSCRIBERS + 2);
    const abandonedDroppedWithinMs = (firstWithout?.at ?? Date.now()) - started;

    // ── the slow subscriber, on its own so the server's CPU goes to its ring ────────────
    const slow = await slowSubscriberPhase(wide, paused, control, sample);

    expect(load.errors).toEqual([]);
    expect(last).toHaveLength(SUBSCRIBERS);
    expect(last.filter((s) => s.error !== null || s.completed)).toEqual([]);
    expect(last.every((s) => s.reasons.SNAPSHOT === 1)).toBe(true);
    expect(finalRing.length).toBeGreaterThan(0);

    // Flat: retained memory (after full GCs) and Redis connections, during and after.
    const worst = Math.max(...samples.map(retained));
    expect(samples.length).toBeGreaterThanOrEqual(2);
    expect(mib(worst - retained(before)), 'retained growth during the load (MiB)').toBeLessThan(
      growthBound(GROWTH_MIB_PER_MINUTE.during),
    );
    expect(mib(retained(after) - retained(before)), 'retained growth after (MiB)').toBeLessThan(
      growthBound(GROWTH_MIB_PER_MINUTE.after),
    );
    for (const s of [...samples, after]) expect(s.redisClients).toBe(before.redisClients);

    // The paused subscriber: no memory held for it, conflated (far fewer events than the
    // reading one got), still connected, and on the latest ring.
    const held = mib(retained(slow.endOfPause) - retained(slow.beforePause));
    expect(held, 'memory held for a paused subscriber (MiB)').toBeLessThan(24);
    // The phase offered more than TCP buffers can hold (else it proves nothing): tens of MB.
    expect(slow.figures.controlDuringPause).toBeGreaterThanOrEqual(40);
    expect(slow.figures.pausedAfterResume).toBeLessThan(slow.figures.controlDuringPause / 2);
    expect(paused.closed).toBe(false);

    const { ops } = load;
    report('soak', {
      soakMs: SOAK_MS,
      loadMs,
      subscribers: SUBSCRIBERS,
      connectMs,
      ops,
      opsPerSecond: Math.round(
        ((ops.enqueue + ops.claim + ops.complete + ops.steer) / loadMs) * 1000,
      ),
      ringEventsToSubscribers: last.reduce((sum, s) => sum + s.events, 0),
      ringReads: after.feed.ringReads,
      convergeMs,
      finalRingLength: finalRing.length,
      heapUsedMiB: {
        before: mib(before.memory.heapUsed),
        during: samples.map((s) => mib(s.memory.heapUsed)),
        after: mib(after.memory.heapUsed),
      },
      externalMiB: { before: mib(before.memory.external), after: mib(after.memory.external) },
      rssMiB: { before: mib(before.memory.rss), after: mib(after.memory.rss) },
      redisClients: { before: before.redisClients, after: after.redisClients },
      sockets: { before: before.sockets, after: after.sockets },
      abandonedDroppedWithinMs,
      serverCpuSeconds: Math.round((after.cpu.user + after.cpu.system) / 1e4) / 100,
      loopDelayMs: {
        p99: Math.max(...samples.map((s) => s.loopDelay.p99)),
        max: Math.max(...samples.map((s) => s.loopDelay.max)),
      },
      slowSubscriber: slow.figures,
    });

    // Tidy up, then account for every job of both queues.
    for (const raw of [paused, control, abandoned]) raw.close();
    const closed = subscribers.next('closed');
    subscribers.send({ type: 'close' });
    await closed;
    const worker = new Worker(new Queue(redis.client(), QUEUE), async () => {}, {
      concurrency: 8,
      parkTimeoutMs: 200,
    });
    ledger.watch(worker);
    await until('the main queue to drain', () => drained(queue), { timeoutMs: 30_000 });
    await worker.close();
    await assertSound(queue, ledger, { exactIds: true });
    for (let job = await wide.claim(); job?.token; job = await wide.claim()) {
      await wide.complete(job.id, job.token);
    }
    await assertSound(wide);
  });
});
