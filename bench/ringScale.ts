/**
 * Section 11 — the ring feed at scale: what a ring change costs the server with a console tab
 * open and ring subscribers, at 100 groups and at 100,000 (DESIGN.md §4.4, "The ring log").
 *
 * For each size, from an empty keyspace: `groups` groups with one pending job each are enqueued
 * (enqueueMany), one server process is started, and over graphql-ws the console's two
 * subscriptions come up — its `RingPulse` (reason, the first 6 joins and leaves, the counts),
 * which makes it read its `QueueView` snapshot (`ringFirst: 400`, 50 groups) at most every
 * 500 ms and at least every 2 s, as `console/src/hooks.ts` does — and `ringSubscribers`
 * subscribers of `ringChanged { reason size ring(first: 20) added removed }`. Then, for
 * `seconds`, the demo's churn: every `tickMs` one claim and complete and one enqueue to a random
 * group (the claim's group leaves the ring, the enqueued one may join it), while a small query
 * (`queue(name) { known }`) is timed every 100 ms.
 *
 * Reported per size: ring changes (the CHANGE events one ring subscriber got), server CPU per
 * change (/proc, user + sys, over the churn), Redis CPU per change (INFO cpu), the small query's
 * p50 and p99, and the bytes a ring subscriber and the console's pulse received per event.
 * The target: server CPU per change and the small query's p50 at 100,000 groups within 2× of
 * those at 100.
 *
 *   npx tsx bench/ringScale.ts            # the full run (2 × ~15 s of churn, plus the fill)
 *   npm run bench -- --only=ringscale
 */
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { Ringmaster } from '../src/lanes/index.js';
import { type BenchRedis, fresh, redisCpuUsec, startBenchRedis } from './redis.js';
import { graphql, startServer } from './server.js';
import { fixed, int, now, percentile, progress, sleep, table } from './util.js';

export interface RingScaleOptions {
  /** Ring sizes (groups on the ring at the start), the first the comparator. */
  sizes: number[];
  /** Subscribers of `ringChanged` with a window, beside the console's pulse. */
  ringSubscribers: number;
  /** Churn duration per size (s). */
  seconds: number;
  /** One claim + complete and one enqueue every this many ms (the demo's ~15–20 claims/s). */
  tickMs: number;
}

export interface RingScaleRow {
  groups: number;
  changes: number;
  claimsPerSec: number;
  serverCpuMsPerChange: number;
  redisCpuMsPerChange: number;
  smallQueryP50Ms: number;
  smallQueryP99Ms: number;
  ringSubscriberBytesPerEvent: number;
  pulseBytesPerEvent: number;
  snapshotReads: number;
}

export interface RingScaleResult {
  options: RingScaleOptions;
  rows: RingScaleRow[];
}

const QUEUE = 'ringscale';
const PULSE = `subscription RingPulse($queue: String!) {
  ringChanged(queue: $queue) { reason added(first: 6) removed(first: 6) addedCount removedCount }
}`;
const RING = `subscription Ring($queue: String!) {
  ringChanged(queue: $queue) { reason size ring(first: 20) added removed }
}`;
const VIEW = `query QueueView($queue: String!) {
  queue(name: $queue) {
    snapshot(first: 50, ringFirst: 400) {
      at ring ringSize counts { onRing pending } groups { edges { node { id state reason } } }
    }
  }
}`;
const SMALL = 'query Small($queue: String!) { queue(name: $queue) { known } }';

interface Counter {
  events: number;
  changes: number;
  bytes: number;
}

async function oneSize(
  redis: BenchRedis,
  groups: number,
  o: RingScaleOptions,
): Promise<RingScaleRow> {
  await fresh(redis.admin);
  const engine = new Ringmaster(redis.connect());
  const q = engine.queue(QUEUE);
  for (let i = 0; i < groups; i += 1_000) {
    const n = Math.min(1_000, groups - i);
    await q.enqueueMany(Array.from({ length: n }, (_, j) => ({ group: `tenant-${i + j}` })));
  }
  progress(`ringscale: ${groups.toLocaleString('en-US')} groups on the ring`);
  const server = await startServer(redis.url);
  const ws = createClient({
    url: `${server.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    lazy: false,
  });
  const stops: (() => void)[] = [];
  const listen = (query: string, counter: Counter, onEvent?: () => void) =>
    new Promise<void>((resolve) => {
      stops.push(
        ws.subscribe(
          { query, variables: { queue: QUEUE } },
          {
            next: (result) => {
              const event = (result.data as { ringChanged: { reason: string } }).ringChanged;
              counter.events++;
              counter.bytes += JSON.stringify(result).length;
              if (event.reason === 'CHANGE') counter.changes++;
              else resolve();
              onEvent?.();
            },
            error: () => resolve(),
            complete: () => {},
          },
        ),
      );
    });
  // The console: a pulse, and a snapshot read at most every 500 ms, at least every 2 s.
  const pulse: Counter = { events: 0, changes: 0, bytes: 0 };
  let lastRead = 0;
  let reading = false;
  let snapshotReads = 0;
  const readView = async () => {
    if (reading || now() - lastRead < 500) return;
    reading = true;
    lastRead = now();
    try {
      await graphql(server.url, VIEW, { queue: QUEUE });
      snapshotReads++;
    } finally {
      reading = false;
    }
  };
  await listen(PULSE, pulse, () => void readView());
  const rings: Counter[] = [];
  await Promise.all(
    Array.from({ length: o.ringSubscribers }, () => {
      const counter: Counter = { events: 0, changes: 0, bytes: 0 };
      rings.push(counter);
      return listen(RING, counter);
    }),
  );
  const viewTimer = setInterval(() => void readView(), 2_000);
  await sleep(1_000);

  const ring0 = rings[0] as Counter;
  const changes0 = ring0.changes;
  const bytes0 = {
    ring: ring0.bytes,
    ringEvents: ring0.events,
    pulse: pulse.bytes,
    pulseEvents: pulse.events,
  };
  const cpu0 = await server.cpu();
  const redis0 = await redisCpuUsec(redis.admin);
  const started = now();
  let claims = 0;
  const latencies: number[] = [];
  const smallLoop = (async () => {
    while (now() - started < o.seconds * 1_000) {
      const t = now();
      await graphql(server.url, SMALL, { queue: QUEUE });
      latencies.push(now() - t);
      await sleep(100);
    }
  })();
  let tick = 0;
  while (now() - started < o.seconds * 1_000) {
    const job = await q.claim();
    if (job?.token) {
      await q.complete(job.id, job.token);
      claims++;
    }
    await q.enqueue(`tenant-${Math.floor(Math.random() * groups * 1.01)}`);
    tick++;
    const wait = started + tick * o.tickMs - now();
    if (wait > 0) await sleep(wait);
  }
  await smallLoop;
  await sleep(500);
  const elapsed = (now() - started) / 1_000;
  const cpu = (await server.cpu()) - cpu0;
  const redisCpu = (await redisCpuUsec(redis.admin)) - redis0;
  const changes = ring0.changes - changes0;
  const row: RingScaleRow = {
    groups,
    changes,
    claimsPerSec: claims / elapsed,
    serverCpuMsPerChange: cpu / 1_000 / changes,
    redisCpuMsPerChange: redisCpu / 1_000 / changes,
    smallQueryP50Ms: percentile(latencies, 50),
    smallQueryP99Ms: percentile(latencies, 99),
    ringSubscriberBytesPerEvent: (ring0.bytes - bytes0.ring) / (ring0.events - bytes0.ringEvents),
    pulseBytesPerEvent: (pulse.bytes - bytes0.pulse) / (pulse.events - bytes0.pulseEvents),
    snapshotReads,
  };
  clearInterval(viewTimer);
  for (const stop of stops) stop();
  await ws.dispose();
  await server.stop();
  return row;
}

export async function ringScale(
  redis: BenchRedis,
  options: RingScaleOptions,
): Promise<RingScaleResult> {
  const rows: RingScaleRow[] = [];
  for (const groups of options.sizes) rows.push(await oneSize(redis, groups, options));
  return { options, rows };
}

/** The ratio of the largest size's figure to the first's. */
export function ringScaleRatios(r: RingScaleResult): { cpu: number; p50: number } {
  const base = r.rows[0];
  const top = r.rows.at(-1);
  if (base === undefined || top === undefined) return { cpu: Number.NaN, p50: Number.NaN };
  return {
    cpu: top.serverCpuMsPerChange / base.serverCpuMsPerChange,
    p50: top.smallQueryP50Ms / base.smallQueryP50Ms,
  };
}

export function renderRingScale(r: RingScaleResult): string {
  const o = r.options;
  return [
    `11. The ring feed at scale — a console tab (pulse + snapshot reads) and ${o.ringSubscribers} ring(first: 20) subscribers, one claim + complete and one enqueue every ${o.tickMs} ms for ${o.seconds} s`,
    table(
      [
        'groups',
        'changes',
        'claims/s',
        'server CPU ms/change',
        'Redis CPU ms/change',
        'small query p50 ms',
        'p99 ms',
        'ring sub bytes/event',
        'pulse bytes/event',
        'snapshot reads',
      ],
      r.rows.map((row) => [
        int(row.groups),
        String(row.changes),
        fixed(row.claimsPerSec, 1),
        fixed(row.serverCpuMsPerChange, 2),
        fixed(row.redisCpuMsPerChange, 3),
        fixed(row.smallQueryP50Ms, 2),
        fixed(row.smallQueryP99Ms, 2),
        fixed(row.ringSubscriberBytesPerEvent, 0),
        fixed(row.pulseBytesPerEvent, 0),
        String(row.snapshotReads),
      ]),
    ),
  ].join('\n');
}

export const RING_SCALE_FULL: RingScaleOptions = {
  sizes: [100, 100_000],
  ringSubscribers: 10,
  seconds: 15,
  tickMs: 55,
};
export const RING_SCALE_QUICK: RingScaleOptions = {
  sizes: [100, 2_000],
  ringSubscribers: 2,
  seconds: 2,
  tickMs: 55,
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const redis = await startBenchRedis();
  try {
    const result = await ringScale(redis, RING_SCALE_FULL);
    const ratios = ringScaleRatios(result);
    process.stdout.write(
      `${renderRingScale(result)}\n100,000 ÷ 100: server CPU per change ${ratios.cpu.toFixed(2)}×, small query p50 ${ratios.p50.toFixed(2)}× (target ≤ 2×)\n`,
    );
  } finally {
    await redis.stop();
  }
  process.exit(0);
}
