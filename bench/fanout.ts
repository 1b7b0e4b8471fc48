/**
 * Section 4 — subscription fan-out: 1, 100, 1,000 and 5,000 graphql-ws subscribers to one queue's
 * `ringChanged`, held by a separate process (`subscribers.ts`), against one server process.
 * Per subscriber count: the latency from a mutation's send to each subscriber's event (p50,
 * p99), the Redis connections the server holds (CLIENT LIST without the benchmark's own), and
 * ring reads per change (INFO commandstats LRANGE calls: the server reads a ring with LRANGE and
 * nothing else in this section sends one). Also the server's memory (section 5 reports it): its
 * RSS once ready (the start-up's transient), after `noGcIdleMs` idle with no forced GC (what `ps`
 * shows of an idle server), then RSS and V8 heap after forced GCs once V8 has let go of the new
 * space the start-up grew, before any subscriber and with each count idle
 * (`ServerProcess.idleMemory`: read at the same new-space state, so the per-subscriber deltas
 * are what the subscribers hold, not a difference of V8's young-generation sizing).
 *
 * Two cores: the server, the subscriber process and Redis share them. The subscriber process
 * speaks the protocol by hand (`subscribers.ts`) so that, per event, it costs less than the
 * server does and keeps up on the other core; the latency is then the server's sequential
 * fan-out plus the last socket's delivery. Several subscriber processes would only take turns
 * on the same two cores.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Ringmaster } from '../src/lanes/index.js';
import { type BenchRedis, commandStats, foreignClients, fresh } from './redis.js';
import { type IdleMemory, startServer } from './server.js';
import type { Reply } from './subscribers.js';
import { askChild, now, percentile, progress, sleep } from './util.js';

export interface FanoutOptions {
  /** Subscriber counts, ascending (1, 100, 1,000 from the first targets; 5,000 from the raised
  ones). */ counts: readonly number[];
  /** Ring changes measured per count. */
  rounds: number;
  /** Pause between rounds (ms); longer than the feed's 25 ms coalescing window. */
  gapMs: number;
  /** Idle after ready before the no-GC RSS reading (ms): ~30 s, what `ps` shows of an idle server. */
  noGcIdleMs: number;
  /** Idle before each after-GC reading, at least and at most (ms): `ServerProcess.idleMemory`. */
  settle: { minIdleMs: number; maxIdleMs: number };
}

/** One after-GC reading of an idle server: {@link IdleMemory}'s figures the report needs. */
export interface IdleReading {
  rssBytes: number;
  heapBytes: number;
  /** V8's new space reserved then (bytes) */
  newSpaceBytes: number;
  /** idle before the reading (ms) */
  idleMs: number;
  /** the new space had shrunk back (else the reading still holds a burst's young generation) */
  settled: boolean;
}

export interface FanoutRow {
  subscribers: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** subscriber-events that did not arrive within 5 s */
  missed: number;
  /** the mutation's own HTTP round trip, p50 (ms) */
  mutationP50Ms: number;
  /** Redis connections held by the server process */
  serverConnections: number;
  /** LRANGE calls on Redis per ring change */
  ringReadsPerChange: number;
  /** server RSS with this many idle subscribers, after a forced GC (bytes) */
  serverRssBytes: number;
  /** V8 heap used with this many idle subscribers, after a forced GC (bytes) */
  serverHeapBytes: number;
  /** the whole reading with this many idle subscribers */
  held: IdleReading;
  /**
   * Server CPU per ring change (ms): the mutation, the ring read, and the event rendered and
   * sent to every subscriber. From /proc in 10 ms ticks, so ±10 ms ÷ rounds.
   */
  serverCpuMsPerChange: number;
  /** The subscriber process' CPU per ring change (ms): sending the mutation, receiving the events. */
  subscriberCpuMsPerChange: number;
}

export interface FanoutResult {
  rows: FanoutRow[];
  /** server RSS idle, before any subscriber, after forced GCs once settled (bytes) */
  serverRssIdleBytes: number;
  /** V8 heap used then (bytes) */
  serverHeapIdleBytes: number;
  /** that reading in full */
  idle: IdleReading;
  /** server RSS when `/ready` first answered (bytes): the start-up's transient */
  serverRssReadyBytes: number;
  /** server RSS after {@link FanoutOptions.noGcIdleMs} idle, no forced GC (bytes) */
  serverRssNoGcBytes: number;
  noGcIdleMs: number;
}

const QUEUE = 'bench-fanout';
const GROUP = 'tenant-0';
const REPLY_TIMEOUT_MS = 120_000;

export async function fanout(redis: BenchRedis, o: FanoutOptions): Promise<FanoutResult> {
  await fresh(redis.admin);
  const setupConn = redis.connect({ enableAutoPipelining: true });
  const setup = new Ringmaster(setupConn).queue(QUEUE);
  await Promise.all(Array.from({ length: 20 }, (_, g) => setup.enqueue(`tenant-${g}`, { g })));
  setupConn.disconnect();

  const server = await startServer(redis.url);
  const child = fork(
    fileURLToPath(new URL('./subscribers.ts', import.meta.url)),
    [JSON.stringify({ url: server.url, queue: QUEUE, group: GROUP })],
    { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  try {
    const readyAt = now();
    const serverRssReadyBytes = await server.rss();
    await sleep(o.noGcIdleMs);
    const serverRssNoGcBytes = await server.rss();
    const settled = await server.idleMemory({ minIdleMs: 0, maxIdleMs: o.settle.maxIdleMs });
    // Idle since ready, the no-GC wait included.
    const idle = reading({ ...settled, idleMs: now() - readyAt });
    progress(
      `fan-out: server RSS at ready ${mib(serverRssReadyBytes)}, after ${(o.noGcIdleMs / 1000).toFixed(0)} s ` +
        `idle ${mib(serverRssNoGcBytes)} (no forced GC), after GC ${mib(idle.rssBytes)} ` +
        `(new space ${mib(idle.newSpaceBytes)}${idle.settled ? '' : ', NOT settled'})`,
    );
    const rows: FanoutRow[] = [];
    for (const count of o.counts) {
      const opened = await ask(child, { type: 'open', count }, 'opened');
      // Memory with the subscribers idle, after forced GCs once V8 has shrunk the new space
      // opening them grew: what they hold, not garbage nor a bigger young generation.
      const held = reading(await server.idleMemory(o.settle));
      progress(
        `fan-out: ${opened.count} subscribers (opened in ${opened.ms.toFixed(0)} ms); server RSS ` +
          `${mib(held.rssBytes)}, heap ${mib(held.heapBytes)} after ${(held.idleMs / 1000).toFixed(1)} s ` +
          `idle (new space ${mib(held.newSpaceBytes)}${held.settled ? '' : ', NOT settled'})`,
      );
      // A short warm-up round pair, not counted.
      await ask(child, { type: 'rounds', rounds: 2, gapMs: o.gapMs }, 'measured');
      const before = await commandStats(redis.admin);
      const cpu0 = await server.cpu();
      const measured = await ask(
        child,
        { type: 'rounds', rounds: o.rounds, gapMs: o.gapMs },
        'measured',
      );
      const serverCpu = (await server.cpu()) - cpu0;
      const after = await commandStats(redis.admin);
      const reads = (after.get('lrange')?.calls ?? 0) - (before.get('lrange')?.calls ?? 0);
      rows.push({
        subscribers: opened.count,
        p50Ms: percentile(measured.latencies, 50),
        p99Ms: percentile(measured.latencies, 99),
        maxMs: percentile(measured.latencies, 100),
        missed: measured.missed,
        mutationP50Ms: percentile(measured.mutationMs, 50),
        serverConnections: await foreignClients(redis.admin),
        ringReadsPerChange: reads / o.rounds,
        serverRssBytes: held.rssBytes,
        serverHeapBytes: held.heapBytes,
        held,
        serverCpuMsPerChange: serverCpu / 1000 / o.rounds,
        subscriberCpuMsPerChange: measured.cpuUsec / 1000 / o.rounds,
      });
      const r = rows.at(-1) as FanoutRow;
      progress(
        `  p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, ${r.serverConnections} connections, ` +
          `${r.ringReadsPerChange.toFixed(2)} ring reads per change; CPU per change: server ` +
          `${r.serverCpuMsPerChange.toFixed(1)} ms, subscribers ${r.subscriberCpuMsPerChange.toFixed(1)} ms`,
      );
    }
    return {
      rows,
      serverRssIdleBytes: idle.rssBytes,
      serverHeapIdleBytes: idle.heapBytes,
      idle,
      serverRssReadyBytes,
      serverRssNoGcBytes,
      noGcIdleMs: o.noGcIdleMs,
    };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      if (child.connected) child.send({ type: 'close' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    await server.stop();
  }
}

function reading(m: IdleMemory): IdleReading {
  return {
    rssBytes: m.rss,
    heapBytes: m.heapUsed,
    newSpaceBytes: m.newSpace,
    idleMs: m.idleMs,
    settled: m.settled,
  };
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

type ReplyOf<T extends Reply['type']> = Extract<Reply, { type: T }>;

/** Send a command to the subscriber process and wait for its reply of type `expect`. */
function ask<T extends Reply['type']>(
  child: ChildProcess,
  command: object,
  expect: T,
): Promise<ReplyOf<T>> {
  return askChild<Reply, T>(child, expect, {
    name: 'the subscriber process',
    timeoutMs: REPLY_TIMEOUT_MS,
    command,
    failOnError: true,
  });
}
