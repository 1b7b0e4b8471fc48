/**
 * The live feed behind `ringChanged`, `groupChanged` and `jobChanged` (DESIGN.md §4, §6). It
 * knows nothing of GraphQL: it hands out async generators of ring changes, group states and job
 * states.
 *
 * - One subscriber connection ({@link KeyspaceSource}) with reference-counted channels; on a
 *   Redis Cluster one per master ({@link ClusterSource}), each channel on the master that owns
 *   its key's slot, moved (with a RESYNC of its watchers) when that owner changes.
 * - A watched ring is kept as a copy the scripts' ring log updates (`ringMirror.ts`): a change
 *   costs a read of the log's tail, the whole ring is read at the start and on a resync or gap.
 * - One {@link Watch} per watched ring, group, job and history stream, shared by all its
 *   subscribers (a {@link WatchRegistry} per kind, one count of them all):
 *   notifications are hints that schedule a coalesced re-read (at most one per throttle window),
 *   never the state itself; while watched, a thing is also re-read every `resyncIntervalMs`
 *   (every `pollIntervalMs` when notifications do not arrive and the feed polls), the watches
 *   taking turns at most `maxRereadsPerSecond` in all ({@link RereadScheduler}).
 * - A group watch also re-reads at the `rateLimitedUntil` it read: the reopening writes
 *   nothing, so nothing notifies it (DESIGN.md §4.4; one timer per watched group).
 * - At most `maxWatches` distinct watches: a subscription that would open one more is refused
 *   with LIMIT_EXCEEDED (one to a ring or group already watched is not).
 * - A canary ({@link KeyspaceSource}) proves that notifications arrive; when they stop (another
 *   client changed `notify-keyspace-events`), the feed polls, re-applies the flags where it may,
 *   and every subscriber gets a RESYNC, and another once notifications are heard again.
 * - One {@link ConflatingStream} per subscriber: at most the latest state is held for a consumer
 *   that does not pull, rendered against the last state that consumer was sent.
 * - After the subscriber reconnects (a restarted Redis), every watch is re-read and every ring
 *   subscriber gets a RESYNC, every group and job subscriber the current state, changed or not.
 * - A job's stream ends by itself after the job's final event (COMPLETED, DEAD, or gone: null).
 * - A watched job is registered in `P:{Q}:watched` ({@link JobRegistrations}), so the scripts
 *   record each change of its state in its event list, and a read sends every one of them in
 *   order (src/pubsub/jobWatch.ts), however short the states between two reads were.
 */
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import { errorLine } from '../lanes/errors.js';
import {
  ErrorCode,
  type GroupInfo,
  queueKeys,
  type Ringmaster,
  RingmasterError,
} from '../lanes/internal.js';
import { isCluster } from '../lanes/redis/client.js';
import { assertPlainKeys } from '../lanes/redis/plainKeys.js';
import * as validate from '../lanes/validate.js';
import { ClusterSource } from './clusterSource.js';
import { ConflatingStream, type Render } from './conflate.js';
import { FlatStream } from './flatten.js';
import { groupKeys, readWatchedGroup, renderGroup, sameGroup } from './groupWatch.js';
import {
  type HistoryBatch,
  type HistoryWindow,
  historyKey,
  historyReader,
  historyRender,
  sameWindow,
} from './historyWatch.js';
import { JOB_WATCH_TTL_MS, JobRegistrations } from './jobRegistry.js';
import {
  endsJob,
  type JobTimeline,
  jobKeys,
  jobReader,
  jobRender,
  sameTimeline,
  type WatchedJob,
} from './jobWatch.js';
import { KeyspaceSource, singleNode } from './keyspaceSource.js';
import { RereadScheduler } from './rereads.js';
import { RING_WATCH_TTL_MS, RingMirror, type RingVersion } from './ringMirror.js';
import { type RingChange, type RingNeed, renderRing, ringKeys, WHOLE_RING } from './ringWatch.js';
import type { FeedMode, FeedSource } from './source.js';
import { Watch } from './watch.js';
import { type WatchBudget, WatchRegistry } from './watchRegistry.js';

export interface LiveFeedOptions {
  /**
   * Reads go through `engine.queue(name).ring()` / `.group(id)` on `engine.redis`; the keys
   * watched are under `engine.prefix`. `engine.redis` may be a `Redis` (one subscriber
   * connection, a duplicate of it) or an ioredis `Cluster` (one subscriber per master, see
   * {@link ClusterSource}).
   */
  engine: Ringmaster;
  /** Coalescing window for re-reads of one ring or group (ms). Default 25. */
  throttleMs?: number;
  /** Safety re-read period while anything of a queue is watched (ms; DESIGN.md §6: 5000). */
  resyncIntervalMs: number;
  /** Poll period when notifications do not arrive (ms; DESIGN.md §6: 1000). */
  pollIntervalMs: number;
  /** Distinct watches (rings, groups and jobs) open at once, at most. Default {@link DEFAULT_MAX_WATCHES}. */
  maxWatches?: number;
  /**
   * Safety re-reads and polls started per second, all watches together, at most; past it each
   * watch's period stretches. Default {@link DEFAULT_MAX_REREADS_PER_SECOND}.
   */
  maxRereadsPerSecond?: number;
  /**
   * Pause between keyspace canary rounds (ms). Default `resyncIntervalMs` less the canary's
   * timeout (at least 100), so that notifications that stop are noticed within one
   * `resyncIntervalMs`.
   */
  canaryIntervalMs?: number;
  /** How long a canary round waits for its events (ms). Default `resyncIntervalMs / 2` within 500–2000. */
  canaryTimeoutMs?: number;
  /**
   * On a Redis Cluster: how often the slot map is re-read to notice a failover or a slot move
   * that no command of this server ran into, and the replicas' notification config checked
   * (ms). Default `resyncIntervalMs`. While a master's subscriber is down it is re-read every
   * 500 ms whatever this says.
   */
  topologyIntervalMs?: number;
  /**
   * How long a job watch's registration in `P:{Q}:watched` lasts without a renewal (ms; renewed
   * every third of it while the watch lives). Default {@link JOB_WATCH_TTL_MS}.
   */
  jobWatchTtlMs?: number;
  /**
   * How long a ring watch's marker `P:{Q}:ringwatched` lasts without a renewal (ms; renewed
   * every third of it while any ring is watched). Default {@link RING_WATCH_TTL_MS}.
   */
  ringWatchTtlMs?: number;
  logger: Logger;
}

/** Counts for `/ready`, logs and tests. */
export interface LiveFeedStats {
  /** Open subscriber generators (ring, group and job). */
  listeners: number;
  /** Queues with a watched ring, group, job or history. */
  watchedQueues: number;
  /** Ring reads started since the feed was made (of the log or whole). */
  ringReads: number;
  /** Of those, reads of the whole ring (LRANGE): a watch's first, a resync, a gap in the log. */
  ringFullReads: number;
  /** Group reads started since the feed was made. */
  groupReads: number;
  /** Job reads started since the feed was made. */
  jobReads: number;
  /** History reads (XRANGE from the last id seen) started since the feed was made. */
  historyReads: number;
  /** Keyspace channels subscribed (or being subscribed), the canary's not counted. */
  channels: number;
  /** Subscriber connections held: 1 on a single Redis, one per master on a cluster. */
  subscribers: number;
  /** Distinct watches open (rings, groups and jobs; at most `maxWatches`). */
  watches: number;
  /** Safety re-reads and polls requested by the scheduler since the feed was made. */
  rereads: number;
}

/** Default bound on distinct watches (a ring, one group or one job of a queue is one watch). */
export const DEFAULT_MAX_WATCHES = 10_000;
/** Default bound on safety re-reads and polls per second, all watches together. */
export const DEFAULT_MAX_REREADS_PER_SECOND = 500;

const DEFAULT_THROTTLE_MS = 25;
/** After a failed re-read, the next one waits this long (ms), or the safety period if shorter. */
const RETRY_MS = 1_000;

function positiveMs(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`LiveFeed: ${name} must be a positive number of ms, got ${value}`);
  }
  return value;
}

function positiveCount(name: string, value: number): number {
  if (!(value >= 1)) throw new RangeError(`LiveFeed: ${name} must be at least 1, got ${value}`);
  return value;
}

export class LiveFeed {
  private readonly engine: Ringmaster;
  private readonly prefix: string;
  private readonly throttleMs: number;
  private readonly resyncIntervalMs: number;
  private readonly pollIntervalMs: number;
  private readonly maxWatches: number;
  private readonly canaryIntervalMs: number;
  private readonly canaryTimeoutMs: number;
  private readonly topologyIntervalMs: number;
  private readonly rereads: RereadScheduler;
  private readonly logger: Logger;
  /** Distinct watches open (the registries' together: rings, groups, jobs, histories). */
  private watchCount = 0;
  /** The limit was reached and logged; logged again only after it was left. */
  private atLimit = false;
  /** The count of distinct watches the registries share (`maxWatches`). */
  private readonly budget: WatchBudget = {
    admit: () => this.admitWatch(),
    closed: () => this.watchClosed(),
  };
  /** queue → its ring's watch */
  private readonly rings = new WatchRegistry<Watch<RingVersion>>(this.budget);
  /** Watched rings whose queue's state the engine found lost, until their next read. */
  private readonly lostRings = new Set<string>();
  /** queue → the copy of its watched ring (one per ring watch) */
  private readonly mirrors = new Map<string, RingMirror>();
  /** Renews every watched ring's marker (`P:{Q}:ringwatched`) while any is watched. */
  private markTimer: NodeJS.Timeout | undefined;
  private readonly ringCounts = { fullReads: 0, logReads: 0 };
  private readonly ringWatchTtlMs: number;
  /** [queue, group] → watch */
  private readonly groups = new WatchRegistry<Watch<GroupInfo>>(this.budget);
  /** [queue, job id] → watch */
  private readonly jobs = new WatchRegistry<Watch<JobTimeline>>(this.budget);
  /** The watched jobs' registrations in `P:{Q}:watched` (DESIGN.md §4.4). */
  private readonly registrations: JobRegistrations;
  /** history stream key → its watch (the queue's stream, shared by its groups'; §4.6) */
  private readonly histories = new WatchRegistry<Watch<HistoryWindow>>(this.budget);
  private readonly streams = new Set<FeedStream<unknown, unknown>>();
  private source: FeedSource | undefined;
  private state: 'new' | 'starting' | 'started' | 'stopped' = 'new';
  private stopping: Promise<void> | undefined;
  private ringReads = 0;
  private groupReads = 0;
  private jobReads = 0;
  private historyReads = 0;

  /**
   * @throws RangeError when a `throttleMs` / interval is out of range
   * @throws RingmasterError BAD_USER_INPUT when the engine's connection moves keys
   *   ({@link assertPlainKeys}): the subscriber, a duplicate of it, would watch channels of
   *   keys nothing writes
   */
  constructor(options: LiveFeedOptions) {
    assertPlainKeys(options.engine.redis, { prefix: options.engine.prefix });
    this.engine = options.engine;
    this.prefix = options.engine.prefix;
    this.throttleMs = options.throttleMs ?? DEFAULT_THROTTLE_MS;
    if (!Number.isFinite(this.throttleMs) || this.throttleMs < 0) {
      throw new RangeError(`LiveFeed: throttleMs must be >= 0, got ${this.throttleMs}`);
    }
    this.resyncIntervalMs = positiveMs('resyncIntervalMs', options.resyncIntervalMs);
    this.pollIntervalMs = positiveMs('pollIntervalMs', options.pollIntervalMs);
    this.maxWatches = positiveCount('maxWatches', options.maxWatches ?? DEFAULT_MAX_WATCHES);
    this.canaryTimeoutMs = positiveMs(
      'canaryTimeoutMs',
      options.canaryTimeoutMs ?? Math.min(2_000, Math.max(500, this.resyncIntervalMs / 2)),
    );
    this.canaryIntervalMs = positiveMs(
      'canaryIntervalMs',
      options.canaryIntervalMs ?? Math.max(100, this.resyncIntervalMs - this.canaryTimeoutMs),
    );
    this.topologyIntervalMs = positiveMs(
      'topologyIntervalMs',
      options.topologyIntervalMs ?? this.resyncIntervalMs,
    );
    this.rereads = new RereadScheduler({
      periodMs: this.resyncIntervalMs,
      maxPerSecond: positiveCount(
        'maxRereadsPerSecond',
        options.maxRereadsPerSecond ?? DEFAULT_MAX_REREADS_PER_SECOND,
      ),
    });
    this.logger = options.logger;
    this.ringWatchTtlMs = positiveMs('ringWatchTtlMs', options.ringWatchTtlMs ?? RING_WATCH_TTL_MS);
    this.registrations = new JobRegistrations(
      options.engine,
      positiveMs('jobWatchTtlMs', options.jobWatchTtlMs ?? JOB_WATCH_TTL_MS),
      this.logger,
    );
  }

  /**
   * 'notifications' while the keyspace canary is heard (or, before its first round, where
   * CONFIG was accepted); 'polling' when notifications do not arrive or SUBSCRIBE is refused
   * (watched queues are then polled).
   */
  get mode(): FeedMode {
    return this.source?.mode ?? 'notifications';
  }

  /**
   * The subscriber connection is up, configured and subscribed to every watched channel (so
   * notifications reach watchers) — on a cluster, every master's. False before `start`, while
   * one reconnects (or its master awaits a failover), after `stop`.
   */
  get subscribed(): boolean {
    return this.source?.subscribed ?? false;
  }

  /**
   * Open the subscriber connection (a duplicate of `engine.redis`; on a cluster one per master),
   * apply the notification config and run a first canary round (at most `canaryTimeoutMs`), so
   * the mode is known. Resolves once the feed is live.
   * @throws when the first connection fails (on a cluster: when no node gives the slot map),
   *   or when called twice
   */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`LiveFeed.start(): the feed is ${this.state}`);
    this.state = 'starting';
    // Typed `Redis` by the engine until it takes a Cluster too; a Cluster works already.
    const redis = this.engine.redis as Redis | Cluster;
    const shared = {
      logger: this.logger,
      pollIntervalMs: this.pollIntervalMs,
      prefix: this.prefix,
      canaryIntervalMs: this.canaryIntervalMs,
      canaryTimeoutMs: this.canaryTimeoutMs,
      onModeChange: (mode: FeedMode) => this.modeChanged(mode),
    };
    const source: FeedSource = isCluster(redis)
      ? new ClusterSource({
          ...shared,
          cluster: redis,
          topologyIntervalMs: this.topologyIntervalMs,
        })
      : new KeyspaceSource({
          ...shared,
          node: singleNode(redis),
          onReconnect: () => this.resyncAll(),
          onMissedEvents: () => this.resyncAll(),
        });
    this.source = source;
    try {
      await source.start();
    } catch (error) {
      this.state = 'stopped';
      await source.stop();
      throw error;
    }
    if (this.state === 'starting') this.state = 'started';
    this.logger.info(
      {
        mode: source.mode,
        subscribers: source.connectionCount,
        ...(source instanceof KeyspaceSource ? { db: source.db } : { cluster: true }),
      },
      'live feed started',
    );
  }

  /**
   * The ring of `queue` with the queue's state: a SNAPSHOT first, then a CHANGE whenever the ring
   * or the state differs from the last this subscriber was sent, and a RESYNC after every
   * reconnect. The ring and the queue's `settings` are watched (a pause writes there). A consumer that does
   * not pull holds only the latest ring. `return()` or aborting `signal` ends it at once and
   * releases its listener and, with the last one, the queue's channel. The watch keeps a copy
   * of the ring from the scripts' log (DESIGN.md §4.4, "The ring log", `RingMirror`); each event
   * carries the head of the ring `need` says (default: the whole ring, O(ring) per event).
   * @throws RingmasterError BAD_USER_INPUT for an invalid queue name (synchronously)
   * @throws RingmasterError LIMIT_EXCEEDED when the ring is not watched yet and `maxWatches`
   *   are open (synchronously; nothing is held)
   * @throws Error when the feed is not started
   */
  ringChanges(
    queue: string,
    signal?: AbortSignal,
    need: RingNeed = WHOLE_RING,
  ): AsyncGenerator<RingChange> {
    const handle = this.engine.queue(queue);
    const source = this.requireStarted();
    const name = handle.name;
    const stream = this.open(renderRing(name, need), signal, () =>
      this.rings.obtain(name, name, (closed) => {
        const mirror = new RingMirror(
          handle.redis,
          queueKeys(this.prefix, name),
          this.ringCounts,
          this.ringWatchTtlMs,
        );
        const watch = new Watch<RingVersion>({
          ...this.watchDefaults(source),
          keys: ringKeys(queueKeys(this.prefix, name)),
          read: async () => {
            this.ringReads++;
            // Kept until a read succeeds: a read that fails while Redis comes back must not
            // drop the news.
            const lost = this.lostRings.has(name);
            const version = await mirror.read(lost);
            if (lost) {
              this.lostRings.delete(name);
              version.stateLost = true;
            }
            return version;
          },
          equals: (a, b) => a === b,
          onResync: () => mirror.invalidate(),
          logger: this.logger.child({ queue: name, watch: 'ring' }),
          onEmpty: () => {
            if (closed()) {
              this.mirrors.delete(name);
              if (this.mirrors.size === 0) this.stopMarking();
            }
          },
        });
        this.mirrors.set(name, mirror);
        this.markTimer ??= setInterval(() => this.renewMarks(), this.ringWatchTtlMs / 3).unref();
        return watch;
      }),
    );
    // The head every version keeps for a render in flight (RingMirror.need) counts this one's.
    const mirror = this.mirrors.get(name);
    if (mirror !== undefined && stream instanceof FeedStream && !stream.done) {
      mirror.needs.set(stream, Math.max(need.ring, need.snapshotAdded));
      stream.release = () => mirror.needs.delete(stream);
    }
    return stream;
  }

  /**
   * Renew every watched ring's marker; a ring whose marker had lapsed (changes went unlogged)
   * is read whole, and its subscribers get a RESYNC.
   */
  private renewMarks(): void {
    for (const [name, mirror] of this.mirrors) {
      mirror.mark().then(
        (lapsed) => {
          if (lapsed) {
            this.logger.info(
              { queue: name },
              'ring watch marker had lapsed: reading the ring whole',
            );
            this.rings.get(name)?.resync();
          }
        },
        (error: unknown) =>
          this.logger.warn(
            { queue: name, err: errorLine(error) },
            'ring watch marker renewal failed',
          ),
      );
    }
  }

  private stopMarking(): void {
    clearInterval(this.markTimer);
    this.markTimer = undefined;
  }

  /**
   * Group `group` of `queue`: its current state first, then whenever any field changes, and
   * after every reconnect. Conflated, released, validated and bounded as {@link ringChanges}.
   * @throws RingmasterError BAD_USER_INPUT for an invalid queue name or group id
   * @throws RingmasterError LIMIT_EXCEEDED when the group is not watched yet and `maxWatches`
   *   are open
   */
  groupChanges(queue: string, group: string, signal?: AbortSignal): AsyncGenerator<GroupInfo> {
    const handle = this.engine.queue(queue);
    const id = validate.groupId(group);
    const source = this.requireStarted();
    const name = handle.name;
    return this.open(renderGroup, signal, () =>
      this.groups.obtain(
        JSON.stringify([name, id]),
        name,
        (closed) =>
          new Watch<GroupInfo>({
            ...this.watchDefaults(source),
            keys: groupKeys(queueKeys(this.prefix, name), id),
            read: () => {
              this.groupReads++;
              return readWatchedGroup(handle, id);
            },
            equals: sameGroup,
            // Its rate window reopens with nothing written: read it again then (DESIGN.md §3).
            changesAt: (g) => g.rateLimitedUntil,
            logger: this.logger.child({ queue: name, group: id, watch: 'group' }),
            onEmpty: closed,
          }),
      ),
    );
  }

  /**
   * Job `id` of `queue`: the job as it is first (null when there is no such job), then each
   * change of its state, in order, with the fields of that moment (every one, however short:
   * claim then complete gives ACTIVE then COMPLETED), and whenever its attempts, lease, run-at
   * time or last error change, and after every reconnect (DESIGN.md §4.4). The job is
   * registered in `P:{Q}:watched` while watched, so the scripts that move it write its events;
   * the job's hash is its only channel. The generator ends by itself after a final event: the
   * job COMPLETED or DEAD, or null once it is gone (its hash deleted: completed without
   * retention, trimmed, removed). Released and bounded as {@link ringChanges}; a consumer that
   * does not pull holds the job's last 100 changes at most.
   * @throws RingmasterError BAD_USER_INPUT for an invalid queue name; JOB_NOT_FOUND for an id
   *   that is not a decimal string (it can name no job: nothing is watched)
   * @throws RingmasterError LIMIT_EXCEEDED when the job is not watched yet and `maxWatches` are
   *   open
   */
  jobChanges(queue: string, id: string, signal?: AbortSignal): AsyncGenerator<WatchedJob> {
    const handle = this.engine.queue(queue);
    const name = handle.name;
    const jobId = validate.jobId(name, id);
    const source = this.requireStarted();
    const batches = this.open(
      jobRender(),
      signal,
      () =>
        this.jobs.obtain(JSON.stringify([name, jobId]), name, (closed) => {
          const registered = this.registrations.hold(name, jobId);
          const read = jobReader(handle, jobId, () => registered);
          return new Watch<JobTimeline>({
            ...this.watchDefaults(source),
            keys: jobKeys(queueKeys(this.prefix, name), jobId),
            read: () => {
              this.jobReads++;
              return read();
            },
            equals: sameTimeline,
            logger: this.logger.child({ queue: name, job: jobId, watch: 'job' }),
            onEmpty: () => {
              closed();
              this.registrations.release(name, jobId);
            },
          });
        }),
      endsJob,
    );
    return new FlatStream(batches);
  }

  /**
   * The steering history of `queue` (with `group`: that group's entries of it) as it is written: each
   * event carries the entries written since the last one this subscriber was sent, oldest
   * first; the first carries none and says the subscription is live (every entry written after
   * it will come, so a client may read `Queue.history` then and miss nothing),
   * and `gap` when more were written between two of its pulls than a watch holds
   * ({@link HISTORY_WINDOW}; for a group, of the queue's entries). One watch per queue's
   * stream, shared by the queue's and its groups' subscribers, counted in `maxWatches`; a hint
   * (the stream's `xadd`), a safety re-read or a poll reads from the last id seen, so an entry
   * written while a notification was lost still comes, late. Released as {@link ringChanges}.
   * @throws RingmasterError BAD_USER_INPUT for an invalid queue name or group id
   * @throws RingmasterError LIMIT_EXCEEDED when the stream is not watched yet and `maxWatches`
   *   are open
   */
  historyAdded(queue: string, group?: string, signal?: AbortSignal): AsyncGenerator<HistoryBatch> {
    const handle = this.engine.queue(queue);
    const id = group === undefined ? undefined : validate.groupId(group);
    const source = this.requireStarted();
    const key = historyKey(queueKeys(this.prefix, handle.name));
    return this.open(historyRender(id), signal, () =>
      this.histories.obtain(key, handle.name, (closed) => {
        const read = historyReader(handle.redis, key);
        return new Watch<HistoryWindow>({
          ...this.watchDefaults(source),
          keys: [key],
          read: () => {
            this.historyReads++;
            return read();
          },
          equals: sameWindow,
          logger: this.logger.child({ queue: handle.name, watch: 'history' }),
          onEmpty: closed,
        });
      }),
    );
  }

  stats(): LiveFeedStats {
    const queues = new Set([
      ...this.rings.queues(),
      ...this.groups.queues(),
      ...this.jobs.queues(),
      ...this.histories.queues(),
    ]);
    return {
      listeners: this.streams.size,
      watchedQueues: queues.size,
      ringReads: this.ringReads,
      ringFullReads: this.ringCounts.fullReads,
      groupReads: this.groupReads,
      jobReads: this.jobReads,
      historyReads: this.historyReads,
      channels: this.source?.channelCount ?? 0,
      subscribers: this.source?.connectionCount ?? 0,
      watches: this.watchCount,
      rereads: this.rereads.count,
    };
  }

  /** End every generator, release every channel and timer, and quit the subscriber. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.state = 'stopped';
      this.rereads.stop();
      this.registrations.stop();
      this.stopMarking();
      for (const stream of [...this.streams]) stream.close();
      this.rings.clear();
      this.groups.clear();
      this.jobs.clear();
      this.histories.clear();
      this.mirrors.clear();
      await this.source?.stop();
      this.logger.info('live feed stopped');
    })();
    return this.stopping;
  }

  private requireStarted(): FeedSource {
    if (this.state !== 'started' || this.source === undefined) {
      throw new Error(`LiveFeed: subscriptions need a started feed (it is ${this.state})`);
    }
    return this.source;
  }

  private watchDefaults(source: FeedSource) {
    return {
      source,
      throttleMs: this.throttleMs,
      retryMs: Math.min(RETRY_MS, this.resyncIntervalMs),
      rereads: this.rereads,
    };
  }

  /**
   * Count one more distinct watch, or refuse it.
   * @throws RingmasterError LIMIT_EXCEEDED at `maxWatches`
   */
  private admitWatch(): void {
    if (this.watchCount >= this.maxWatches) {
      if (!this.atLimit) {
        this.atLimit = true;
        this.logger.warn(
          { maxWatches: this.maxWatches },
          `${this.maxWatches} distinct rings, groups and jobs are watched, the limit (the server's ` +
            'MAX_WATCHES): subscriptions to others are refused with LIMIT_EXCEEDED until some close',
        );
      }
      throw new RingmasterError(
        ErrorCode.LIMIT_EXCEEDED,
        `this server already watches ${this.maxWatches} distinct rings, groups and jobs, its limit: ` +
          'subscribe to one already watched, or retry once other subscriptions have closed',
      );
    }
    this.watchCount++;
  }

  private watchClosed(): void {
    this.watchCount--;
    if (this.watchCount < this.maxWatches) this.atLimit = false;
  }

  private periodMs(mode: FeedMode): number {
    return mode === 'polling'
      ? Math.min(this.pollIntervalMs, this.resyncIntervalMs)
      : this.resyncIntervalMs;
  }

  /**
   * A subscriber stream on the watch `attach` finds or makes; nothing is held if `signal` is
   * aborted. With `isLast`, the stream ends after the event it says is the last.
   */
  private open<T, E>(
    render: Render<T, E>,
    signal: AbortSignal | undefined,
    attach: () => Watch<T>,
    isLast?: (event: E) => boolean,
  ): AsyncGenerator<E> {
    const stream = new FeedStream<T, E>(render, this.streams, signal, isLast);
    if (signal?.aborted) {
      stream.close();
      return stream;
    }
    // First: a watch refused (LIMIT_EXCEEDED) throws before this stream holds anything.
    const watch = attach();
    this.streams.add(stream as FeedStream<unknown, unknown>);
    stream.watch = watch;
    watch.add(stream);
    signal?.addEventListener('abort', stream, { once: true });
    return stream;
  }

  private allWatches(): Watch<unknown>[] {
    return [
      ...this.rings.watches(),
      ...this.groups.watches(),
      ...this.jobs.watches(),
      ...this.histories.watches(),
    ] as Watch<unknown>[];
  }

  /**
   * The engine found that Redis lost `queue`'s state (`RingmasterOptions.onStateLost`): every
   * watch is re-read and sent (a FLUSHALL sends no keyspace event), the queue's ring subscribers
   * as a RESYNC with `resyncReason` STATE_LOST (DESIGN.md §4.4).
   */
  stateLost(queue: string): void {
    if (this.rings.get(queue) !== undefined) this.lostRings.add(queue);
    this.resyncAll();
  }

  private resyncAll(): void {
    for (const watch of this.allWatches()) watch.resync();
  }

  private modeChanged(mode: FeedMode): void {
    this.logger.info({ mode }, `live feed mode: ${mode}`);
    this.rereads.setPeriod(this.periodMs(mode));
  }
}

/**
 * A subscriber's stream as the feed holds it: what it must release when it ends (its watch's
 * listener, the feed's count, its abort listener) kept as fields, with the stream itself as
 * the abort signal's listener (`handleEvent`), not three closures per subscriber
 * (PERFORMANCE.md §5).
 */
class FeedStream<T, E> extends ConflatingStream<T, E> {
  /** the watch it listens to, once attached */
  watch: Watch<T> | undefined = undefined;

  constructor(
    render: Render<T, E>,
    private readonly streams: Set<FeedStream<unknown, unknown>>,
    private readonly signal: AbortSignal | undefined,
    isLast: ((event: E) => boolean) | undefined,
  ) {
    super(render, isLast);
  }

  /** The abort signal's listener. */
  handleEvent(): void {
    this.close();
  }

  /** Called once when the stream ends (a ring stream's need leaves its ring's copy). */
  release: (() => void) | undefined = undefined;

  protected override ended(): void {
    this.release?.();
    this.signal?.removeEventListener('abort', this);
    this.streams.delete(this as FeedStream<unknown, unknown>);
    this.watch?.remove(this);
  }
}
