/**
 * `GET /metrics` (DESIGN.md §4.7): Prometheus text format from prom-client, one registry per
 * server. Per queue, read from Redis at each scrape (so every replica reports the same): groups
 * by state, ring length, jobs by state, the event counters of `stats`, the oldest pending job's
 * age; per server: the live feed's subscribers, watches, mode and subscriber health, a script
 * latency histogram (the engine's `onScript` hook), GraphQL operations by name and result
 * (`plugins/operationMetrics.ts`), and prom-client's default process metrics.
 *
 * Counters that live in Redis: prom-client's `Counter` can only be incremented, so each scrape
 * `reset()`s the per-queue counters and `inc()`s every label set by the value read — the value
 * exposed is Redis' own total (a Prometheus counter, so `rate()` works; a queue's counter only
 * falls if its `stats` hash was deleted, which `rate()` reads as a counter reset). Gauges are
 * `reset()` and `set()` the same way, so a queue that left `P:queues` leaves the output.
 *
 * Cost: one SMEMBERS of `P:queues` and one script per queue (`Queue.metrics`,
 * `readMetrics-7.lua`) per scrape — O(queues), never O(groups) or O(jobs). Scrapes that arrive
 * while one is being read share it. On a Redis Cluster each queue's script goes to its master.
 * The per-group series (`ringmaster_group_pending`, `ringmaster_group_oldest_pending_age_seconds`)
 * cover the top `METRICS_TOP_GROUPS` groups of each queue by PENDING and by OLDEST_PENDING
 * (`Queue.topGroups`, two scripts more per queue, O(log groups + N)), so the series count is
 * bounded by queues × N whatever the number of tenants; N = 0 reads and exports none.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { errorLine } from '../lanes/errors.js';
import type { QueueMetrics, Ringmaster, ScriptObserver, TopGroup } from '../lanes/internal.js';
import type { LiveFeed } from '../pubsub/index.js';
import type { Authenticator } from './auth.js';
import { isLoopback } from './loopback.js';

/** Buckets of `ringmaster_script_duration_seconds` (s): 0.1 ms to 2.5 s. */
const SCRIPT_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
];

/** Queues whose scripts one scrape runs at once, at most (the rest wait their turn). */
const QUEUE_READS_AT_ONCE = 16;

/** The event counters of `stats` exported as `ringmaster_jobs_<name>_total`. */
const COUNTERS = [
  'enqueued',
  'claimed',
  'completed',
  'retried',
  'reaped',
  'dead',
  'removed',
  'requeued',
] as const;

/** One queue's read of a scrape: its numbers and its top groups by each ranking exported. */
interface QueueRead {
  readonly metrics: QueueMetrics;
  readonly pending: readonly TopGroup[];
  readonly oldest: readonly TopGroup[];
}

/** What the per-server gauges read. */
export interface MetricsSources {
  readonly engine: Ringmaster;
  readonly feed: LiveFeed;
}

/** A server's metrics: its registry, the engine's script observer and the scrape. */
export class ServerMetrics {
  /** Every metric of this server (not prom-client's global registry). */
  readonly registry = new Registry();
  /** `ringmaster_graphql_operations_total{operation,type,result}` (plugins/operationMetrics). */
  readonly operations: Counter<'operation' | 'type' | 'result'>;

  private readonly scriptDuration: Histogram<'script' | 'result'>;
  private readonly readErrors: Counter;
  private readonly groups: Gauge<'queue' | 'state'>;
  private readonly ring: Gauge<'queue'>;
  private readonly jobs: Gauge<'queue' | 'state'>;
  private readonly oldestAge: Gauge<'queue'>;
  private readonly groupPending: Gauge<'queue' | 'group'>;
  private readonly groupOldestAge: Gauge<'queue' | 'group'>;
  private readonly cap: Gauge<'queue'>;
  private readonly reserved: Gauge<'queue'>;
  private readonly workers: Gauge<'queue'>;
  private readonly schedules: Gauge<'queue'>;
  private readonly counters: Map<(typeof COUNTERS)[number], Counter<'queue'>>;
  private readonly statesLost: Counter<'queue' | 'cause'>;
  private sources: MetricsSources | null = null;
  private reading: Promise<void> | null = null;

  /**
   * @param topGroups groups per queue in the per-group series, by each ranking (METRICS_TOP_GROUPS,
   *   0..100; 0 reads and exports none)
   */
  constructor(
    private readonly logger?: Logger,
    private readonly topGroups = 0,
  ) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.scriptDuration = new Histogram({
      name: 'ringmaster_script_duration_seconds',
      help: 'Duration of the engine script calls of this server (s), by script and result (ok, error).',
      labelNames: ['script', 'result'],
      buckets: SCRIPT_BUCKETS,
      registers,
    });
    this.operations = new Counter({
      name: 'ringmaster_graphql_operations_total',
      help: 'GraphQL operations run by this server, by operation name (anonymous, other past 200 names), type and result (ok, error).',
      labelNames: ['operation', 'type', 'result'],
      registers,
    });
    this.readErrors = new Counter({
      name: 'ringmaster_metrics_read_errors_total',
      help: 'Queue reads of /metrics scrapes that failed (the queue registry or one queue); its series were left out.',
      registers,
    });
    this.groups = new Gauge({
      name: 'ringmaster_groups',
      help: 'Groups of a queue by state: ready (on the ring), saturated (at or above their limit), paused, rate_limited, total (registered).',
      labelNames: ['queue', 'state'],
      registers,
    });
    this.ring = new Gauge({
      name: 'ringmaster_ring_length',
      help: 'Groups on the ring of a queue (serviceable).',
      labelNames: ['queue'],
      registers,
    });
    this.jobs = new Gauge({
      name: 'ringmaster_jobs',
      help: 'Jobs of a queue by state: pending, delayed, active, dead and completed (those kept by the retention).',
      labelNames: ['queue', 'state'],
      registers,
    });
    this.oldestAge = new Gauge({
      name: 'ringmaster_oldest_pending_age_seconds',
      help: 'Age of the oldest pending job of a queue (s since it was enqueued, Redis clock); 0 with none pending.',
      labelNames: ['queue'],
      registers,
    });
    this.groupPending = new Gauge({
      name: 'ringmaster_group_pending',
      help: 'Pending jobs of a group, for the top METRICS_TOP_GROUPS groups of each queue by pending jobs (the rest are left out, so the series are bounded).',
      labelNames: ['queue', 'group'],
      registers,
    });
    this.groupOldestAge = new Gauge({
      name: 'ringmaster_group_oldest_pending_age_seconds',
      help: 'Age of the oldest pending job of a group (s since it was enqueued, Redis clock), for the top METRICS_TOP_GROUPS groups of each queue by that age.',
      labelNames: ['queue', 'group'],
      registers,
    });
    this.cap = new Gauge({
      name: 'ringmaster_queue_limit',
      help: 'The queue’s cap: the most jobs of the queue in flight at once (setQueueLimit); absent for a queue with no cap. Jobs in flight: ringmaster_jobs{state="active"}.',
      labelNames: ['queue'],
      registers,
    });
    this.reserved = new Gauge({
      name: 'ringmaster_queue_reserved',
      help: 'The sum of the groups’ reserves of the queue’s cap (setReserve); absent while it is 0 and there is no cap.',
      labelNames: ['queue'],
      registers,
    });
    this.workers = new Gauge({
      name: 'ringmaster_workers',
      help: 'Live workers of a queue: registered by their heartbeat and not lapsed (3 heartbeats), Redis clock.',
      labelNames: ['queue'],
      registers,
    });
    this.schedules = new Gauge({
      name: 'ringmaster_schedules',
      help: 'The queue’s schedules (upsertSchedule): each enqueues one job per tick.',
      labelNames: ['queue'],
      registers,
    });
    this.statesLost = new Counter({
      name: 'ringmaster_redis_state_lost_total',
      help: "Times this server found that Redis lost a queue's state (restarted without its data, flushed, failed over to an empty replica), by queue and cause (RESTARTED, DELETED, UNKNOWN).",
      labelNames: ['queue', 'cause'],
      registers,
    });
    this.counters = new Map(
      COUNTERS.map((name) => [
        name,
        new Counter({
          name: `ringmaster_jobs_${name}_total`,
          help: `Jobs ${name} in a queue since it was created (its stats hash in Redis: the same on every server).`,
          labelNames: ['queue'],
          registers,
        }),
      ]),
    );
  }

  /** The engine's `onScript` hook: feeds `ringmaster_script_duration_seconds`. */
  readonly observeScript: ScriptObserver = (name, durationMs, ok) => {
    this.scriptDuration.observe({ script: name, result: ok ? 'ok' : 'error' }, durationMs / 1000);
  };

  /** Count a queue's lost state (`ringmaster_redis_state_lost_total`; server/stateLoss.ts). */
  stateLost(queue: string, cause: string): void {
    this.statesLost.inc({ queue, cause });
  }

  /**
   * Start reading `sources` at each scrape: the queues of `engine`, the gauges of `feed`. Called
   * once both exist (the engine needs {@link observeScript} before the feed can be made).
   */
  attach(sources: MetricsSources): void {
    this.sources = sources;
    const { feed } = sources;
    const registers = [this.registry];
    new Gauge({
      name: 'ringmaster_feed_subscribers',
      help: 'Subscriptions (streams) this server feeds now.',
      registers,
      collect() {
        this.set(feed.stats().listeners);
      },
    });
    new Gauge({
      name: 'ringmaster_feed_watches',
      help: 'Distinct rings, groups and jobs this server watches now (MAX_WATCHES bounds them).',
      registers,
      collect() {
        this.set(feed.stats().watches);
      },
    });
    new Gauge({
      name: 'ringmaster_feed_mode',
      help: 'How this server hears changes: 1 for the mode in force (notifications or polling), 0 for the other.',
      labelNames: ['mode'],
      registers,
      collect() {
        this.set({ mode: 'notifications' }, feed.mode === 'notifications' ? 1 : 0);
        this.set({ mode: 'polling' }, feed.mode === 'polling' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'ringmaster_feed_subscriber_up',
      help: "1 while the keyspace subscriber is connected and subscribed (on a cluster: every master's), else 0.",
      registers,
      collect() {
        this.set(feed.subscribed ? 1 : 0);
      },
    });
  }

  /**
   * The Prometheus text of every metric: reads every queue first (one script each), then
   * renders. Concurrent calls share one read. A queue that cannot be read is left out (and
   * counted in `ringmaster_metrics_read_errors_total`); the rest are still answered.
   */
  async scrape(): Promise<string> {
    this.reading ??= this.readQueues().finally(() => {
      this.reading = null;
    });
    await this.reading;
    return this.registry.metrics();
  }

  /** The content type of {@link scrape}'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  private async readQueues(): Promise<void> {
    const engine = this.sources?.engine;
    if (!engine) return;
    let names: string[];
    try {
      names = await engine.queues();
    } catch (error) {
      this.failed(error, undefined);
      names = [];
    }
    const read = new Map<string, QueueRead>();
    for (let i = 0; i < names.length; i += QUEUE_READS_AT_ONCE) {
      await Promise.all(
        names.slice(i, i + QUEUE_READS_AT_ONCE).map(async (name) => {
          try {
            const queue = engine.queue(name);
            const metrics = await queue.metrics();
            const [pending, oldest] =
              this.topGroups === 0
                ? [[], []]
                : await Promise.all([
                    queue.topGroups('PENDING', this.topGroups),
                    queue.topGroups('OLDEST_PENDING', this.topGroups),
                  ]);
            read.set(name, { metrics, pending, oldest });
          } catch (error) {
            this.failed(error, name);
          }
        }),
      );
    }
    // All at once, after every read: a render never sees half of one scrape and half of another.
    for (const metric of [
      this.groups,
      this.ring,
      this.jobs,
      this.oldestAge,
      this.groupPending,
      this.groupOldestAge,
      this.cap,
      this.reserved,
      this.workers,
      this.schedules,
    ])
      metric.reset();
    for (const counter of this.counters.values()) counter.reset();
    for (const [queue, r] of read) {
      this.record(queue, r.metrics);
      for (const g of r.pending) this.groupPending.set({ queue, group: g.id }, g.pending);
      for (const g of r.oldest) {
        // A job hash without enqueuedAt (another writer's): left out rather than reported wrong.
        if (g.oldestPendingAgeMs !== null) {
          this.groupOldestAge.set({ queue, group: g.id }, g.oldestPendingAgeMs / 1000);
        }
      }
    }
  }

  private record(queue: string, m: QueueMetrics): void {
    const groups = {
      ready: m.ring,
      saturated: m.saturated,
      paused: m.paused,
      rate_limited: m.rateLimited,
      total: m.groups,
    };
    for (const [state, value] of Object.entries(groups)) this.groups.set({ queue, state }, value);
    this.ring.set({ queue }, m.ring);
    const jobs = {
      pending: m.pending,
      delayed: m.delayed,
      active: m.active,
      dead: m.dead,
      completed: m.completed,
    };
    for (const [state, value] of Object.entries(jobs)) this.jobs.set({ queue, state }, value);
    if (m.limit !== null) this.cap.set({ queue }, m.limit);
    if (m.limit !== null || m.reserved > 0) this.reserved.set({ queue }, m.reserved);
    this.workers.set({ queue }, m.workers);
    this.schedules.set({ queue }, m.schedules);
    for (const [name, counter] of this.counters) counter.inc({ queue }, m.stats[name]);
    // Unknown this time (stale index entries left to mend, or a job hash without enqueuedAt):
    // left out rather than reported wrong.
    if (m.oldestPending === null && m.settled) this.oldestAge.set({ queue }, 0);
    else if (m.oldestPending?.ageMs != null) {
      this.oldestAge.set({ queue }, m.oldestPending.ageMs / 1000);
    }
  }

  private failed(error: unknown, queue: string | undefined): void {
    this.readErrors.inc();
    this.logger?.warn(
      { err: errorLine(error), queue },
      'metrics: a queue read failed; its series are left out of this scrape',
    );
  }
}

/** Who may read `/metrics` (DESIGN.md §6). */
export interface MetricsAccess {
  /** AUTH_TOKENS: with auth on, any configured token (any role) may read. */
  readonly auth: Authenticator;
  /** METRICS_TOKEN: a token that may read `/metrics` and nothing else; null for none. */
  readonly metricsToken: string | null;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => unknown;

const digest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/**
 * Wrap `next` so `GET`/`HEAD /metrics` (any query string) is answered here, before Yoga:
 * with AUTH_TOKENS set, a bearer token of any role or METRICS_TOKEN is needed (401 without one);
 * without AUTH_TOKENS the server is loopback-only, and as on `/graphql` a request whose `Host`
 * is not a loopback name is refused (403, DNS rebinding).
 */
export function withMetrics(
  next: Listener,
  metrics: ServerMetrics,
  access: MetricsAccess,
): Listener {
  const metricsDigest = access.metricsToken === null ? null : digest(access.metricsToken);
  const allowed = (authorization: string | undefined): boolean => {
    if (access.auth.roleOf(authorization) !== null) return true;
    if (metricsDigest === null || typeof authorization !== 'string') return false;
    if (authorization.length > 4096) return false;
    const token = authorization.replace(/^Bearer\s+/i, '').trim();
    return token !== '' && timingSafeEqual(digest(token), metricsDigest);
  };
  return (req, res) => {
    const method = req.method ?? 'GET';
    const pathname = (req.url ?? '/').split('?', 1)[0];
    if (pathname !== '/metrics' || (method !== 'GET' && method !== 'HEAD')) return next(req, res);
    const refuse = (status: number, message: string, headers: Record<string, string> = {}) => {
      const body = `${JSON.stringify({ error: message })}\n`;
      res.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
        'cache-control': 'no-store',
        ...headers,
      });
      res.end(method === 'HEAD' ? undefined : body);
    };
    if (!access.auth.enabled && !isLoopback(req.headers.host, 'authority')) {
      return refuse(
        403,
        'the Host header must name this machine (loopback) while AUTH_TOKENS is unset',
      );
    }
    if (access.auth.enabled && !allowed(req.headers.authorization)) {
      return refuse(401, 'a valid bearer token (AUTH_TOKENS or METRICS_TOKEN) is required', {
        'www-authenticate': 'Bearer',
      });
    }
    metrics.scrape().then(
      (text) => {
        res.writeHead(200, {
          'content-type': metrics.contentType,
          'content-length': String(Buffer.byteLength(text)),
          'cache-control': 'no-store',
        });
        res.end(method === 'HEAD' ? undefined : text);
      },
      () => refuse(500, 'metrics could not be read'),
    );
  };
}
