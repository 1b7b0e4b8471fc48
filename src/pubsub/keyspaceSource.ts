/**
 * The keyspace event source: ONE dedicated subscriber connection per feed (on a
 * Redis Cluster, one of these per master: `ClusterSource`), with reference-counted channels —
 * SUBSCRIBE `__keyspace@<db>__:<key>` on the first watcher of a key, UNSUBSCRIBE on the last.
 * A message is only a hint that a key was touched; watchers re-read.
 *
 * On every (re)connect ('ready'), before any SUBSCRIBE, it applies the notification config on
 * this same connection (a fresh connection is not yet in subscriber mode), then subscribes every
 * watched channel and, after a reconnect, calls `onReconnect` so watchers resync. ioredis' own
 * resubscribe, offline queue and resend of unfulfilled commands are off, so nothing reaches the
 * new connection ahead of the CONFIG commands; the source resubscribes itself.
 *
 * Whether events really arrive is then proven, not assumed, by the {@link Canary}: a round at
 * start (awaited), after every reconnect, and every `canaryIntervalMs`. The mode follows what
 * the canary finds. Heard: 'notifications'. Not heard: 'polling' (the owner polls), the flags are
 * re-applied where CONFIG is allowed (another client may have removed them under a live server),
 * a warning names what happened, and the owner is told to resync (`onMissedEvents`); it is told
 * again when the canary is heard and the mode goes back to 'notifications', since changes made
 * between the last poll and the flags' return were published to nobody. Before the first
 * verdict the mode is what CONFIG said: 'polling' where it is refused.
 *
 * When Redis refuses the SUBSCRIBE itself (an ACL user without the keyspace channels, Redis 7's
 * default for a new user), the mode is 'polling' too: no event would ever arrive, no canary
 * round runs, and the owner polls until a reconnect finds the permission granted.
 */
import { type Redis, type RedisOptions, ReplyError } from 'ioredis';
import type { Logger } from 'pino';
import { errorLine } from '../lanes/errors.js';
import { assertPlainKeys } from '../lanes/redis/plainKeys.js';
import { Canary, type CanaryVerdict, randomCanaryId } from './canary.js';
import {
  applyNotifyConfig,
  ConfigRefusedError,
  missingFlags,
  NEEDED_FLAGS,
} from './notifyConfig.js';
import type { FeedMode, FeedSource, KeyWatch, WatchKeyOptions } from './source.js';

export type { FeedMode, KeyWatch } from './source.js';

/** The one Redis server a {@link KeyspaceSource} listens to, and how to reach it. */
export interface SourceNode {
  /** The database whose keyspace channels are watched (0 on a cluster). */
  readonly db: number;
  /** A new connection to the server with `overrides` applied, not connected yet. */
  openSubscriber(overrides: RedisOptions): Redis;
  /**
   * The connection canary writes and CONFIG re-applies go on now (never the subscriber).
   * @throws Error when there is none at the moment (the round is then inconclusive)
   */
  commands(): Redis;
  /** An id for a new canary's keys (`P:canary:{<id>}:…`). */
  canaryId(): string;
}

/**
 * A single Redis: the subscriber is a duplicate of `redis` (same server, db and credentials),
 * canary writes and CONFIG re-applies go on `redis` itself.
 * @throws RingmasterError BAD_USER_INPUT when `redis` moves keys ({@link assertPlainKeys}):
 *   the channels named from unprefixed keys, on its `db`, would never fire
 */
export function singleNode(redis: Redis): SourceNode {
  assertPlainKeys(redis);
  return {
    db: redis.options.db ?? 0,
    openSubscriber: (overrides) => redis.duplicate(overrides),
    commands: () => redis,
    canaryId: randomCanaryId,
  };
}

export interface KeyspaceSourceOptions {
  /** The server listened to. */
  readonly node: SourceNode;
  readonly logger: Logger;
  /** For the log lines that say how often the owner polls when events do not arrive (ms). */
  readonly pollIntervalMs: number;
  /** Key prefix `P`, for the canary's keys (`P:canary:{<id>}:…`). */
  readonly prefix: string;
  /** Pause between the end of one canary round and the start of the next (ms). */
  readonly canaryIntervalMs: number;
  /** How long a canary round waits for its events (ms). */
  readonly canaryTimeoutMs: number;
  /** After a reconnect, once every watched channel is subscribed again. */
  readonly onReconnect: () => void;
  /**
   * Events may have been missed while the subscriber stayed connected: the canary went unheard
   * while the mode was 'notifications', or was heard again after 'polling'. Watchers resync.
   */
  readonly onMissedEvents: () => void;
  /** The mode changed (at start, at a reconnect, or on a canary verdict). */
  readonly onModeChange: (mode: FeedMode) => void;
}

interface Registration {
  readonly onHint: (event: string) => void;
}

interface Channel {
  readonly registrations: Set<Registration>;
  readonly ready: Promise<void>;
  /** The canary's: left out of {@link KeyspaceSource.channelCount}. */
  readonly internal: boolean;
}

/** What re-applying the flags after an unheard canary round found. */
type Reapplied =
  | { readonly kind: 'reapplied'; readonly before: string; readonly after: string }
  | { readonly kind: 'unchanged'; readonly flags: string }
  | { readonly kind: 'refused' | 'failed'; readonly err: string };

export class KeyspaceSource implements FeedSource {
  /** The database whose keyspace channels are watched. */
  readonly db: number;
  private readonly channels = new Map<string, Channel>();
  private readonly logger: Logger;
  private subscriber: Redis | undefined;
  private currentMode: FeedMode = 'notifications';
  /** Configured and subscribed on the current connection: SUBSCRIBE/UNSUBSCRIBE may be sent. */
  private live = false;
  /** Live, and every channel watched at the last (re)connect subscribed again: events flow. */
  private resubscribed = false;
  /** A SUBSCRIBE on the current connection was refused by Redis (an ACL): see subscribeRefused. */
  private refused = false;
  /** Bumped at each 'ready' and 'close', so a round on a connection that went away stops. */
  private epoch = 0;
  private liveOnce = false;
  private stopped = false;
  /** The last connect's CONFIG was refused (the mode before any canary verdict). */
  private configRefused = false;
  private canary: Canary | undefined;
  /** The last conclusive canary verdict (kept across reconnects until the next one). */
  private canaryState: 'unknown' | 'heard' | 'missed' = 'unknown';
  /** The last round could not tell; warned once per streak. */
  private canaryUnsure = false;
  private canaryTimer: NodeJS.Timeout | undefined;
  /** Bumped to end a canary loop (a new one starts, or the source stops). */
  private canaryLoop = 0;
  private round: Promise<void> | undefined;
  private firstLive: (() => void) | undefined;
  /** Settles when the subscriber first goes live (or the source stops first). */
  private livePromise: Promise<void> = Promise.resolve();
  /** Settled when the connection closes: pending SUBSCRIBE replies may never come. */
  private readonly onCloseWaiters = new Set<() => void>();

  constructor(private readonly options: KeyspaceSourceOptions) {
    this.db = options.node.db;
    this.logger = options.logger;
  }

  get mode(): FeedMode {
    return this.currentMode;
  }

  /**
   * The subscriber is connected, configured and has (re)subscribed every channel watched when
   * it connected. False before start, while it is down or reconnecting, and after stop.
   */
  get subscribed(): boolean {
    return this.resubscribed;
  }

  /** One subscriber connection. */
  readonly connectionCount = 1;

  /** Channels subscribed or to be subscribed for watchers, the canary's not counted. */
  get channelCount(): number {
    let internal = 0;
    for (const channel of this.channels.values()) if (channel.internal) internal++;
    return this.channels.size - internal;
  }

  /**
   * Settles once the subscriber is first live (configured and subscribed), or the source
   * stopped first; resolved before {@link start}.
   */
  whenLive(): Promise<void> {
    return this.livePromise;
  }

  /**
   * Connect, apply the notification config, go live, and run a first canary round (at most
   * `canaryTimeoutMs`), so the mode is known when this resolves.
   * @throws when the first connection fails
   */
  async start(): Promise<void> {
    const subscriber = this.options.node.openSubscriber({
      lazyConnect: true,
      enableOfflineQueue: false,
      autoResubscribe: false,
      autoResendUnfulfilledCommands: false,
      // Whatever the connection it duplicates does: a subscriber has nothing to batch.
      enableAutoPipelining: false,
    });
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, event: string) => this.dispatch(channel, event));
    subscriber.on('error', (error: Error) => {
      this.logger.debug({ err: errorLine(error) }, 'keyspace subscriber connection error');
    });
    subscriber.on('close', () => this.onClose());
    subscriber.on('ready', () => {
      void this.onReady();
    });
    const live = new Promise<void>((resolve) => {
      this.firstLive = resolve;
    });
    this.livePromise = live;
    this.canary = this.makeCanary(subscriber);
    try {
      await subscriber.connect();
    } catch (error) {
      subscriber.disconnect();
      throw error;
    }
    await live;
    // The mode the feed starts in is what the canary finds, not what CONFIG said.
    await this.canaryRound();
    this.startCanaryLoop(this.options.canaryIntervalMs);
  }

  /**
   * Replace the canary by one with a new id (new keys): on a cluster, after the slot of the old
   * one's keys moved to another master. A round in flight on the old one is disregarded.
   */
  renewCanary(): void {
    const subscriber = this.subscriber;
    if (this.stopped || subscriber === undefined) return;
    this.canary?.dispose();
    this.canary = this.makeCanary(subscriber);
    this.startCanaryLoop(0);
  }

  /**
   * Watch `key`: `onHint` runs on every keyspace event of it, with the event's name.
   * `internal` channels (the canary's) are left out of {@link channelCount}. `onResync` is not
   * called: a reconnect resyncs every watcher through `onReconnect`.
   */
  watch(
    key: string,
    onHint: (event: string) => void,
    { internal = false }: WatchKeyOptions = {},
  ): KeyWatch {
    const name = `__keyspace@${this.db}__:${key}`;
    let channel = this.channels.get(name);
    if (channel === undefined) {
      channel = { registrations: new Set(), ready: this.subscribe([name]), internal };
      this.channels.set(name, channel);
    }
    const registration: Registration = { onHint };
    const entry = channel;
    entry.registrations.add(registration);
    let released = false;
    return {
      ready: entry.ready,
      release: () => {
        if (released) return;
        released = true;
        entry.registrations.delete(registration);
        if (entry.registrations.size > 0 || this.channels.get(name) !== entry) return;
        this.channels.delete(name);
        if (this.live) {
          this.subscriber?.unsubscribe(name).catch((error: unknown) => {
            this.logger.debug({ err: errorLine(error), channel: name }, 'UNSUBSCRIBE failed');
          });
        }
      },
    };
  }

  /** Forget every channel and quit the subscriber connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.live = false;
    this.resubscribed = false;
    this.epoch++;
    this.canaryLoop++;
    clearTimeout(this.canaryTimer);
    this.canary?.dispose();
    this.channels.clear();
    this.firstLive?.();
    this.settleCloseWaiters();
    const subscriber = this.subscriber;
    if (subscriber === undefined) return;
    if (subscriber.status === 'ready') {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        subscriber.quit().catch(() => undefined),
        new Promise((resolve) => {
          timer = setTimeout(resolve, 1_000);
        }),
      ]);
      clearTimeout(timer);
    }
    subscriber.disconnect();
  }

  private makeCanary(subscriber: Redis): Canary {
    const { node } = this.options;
    return new Canary({
      id: node.canaryId(),
      writer: () => node.commands(),
      prefix: this.options.prefix,
      timeoutMs: this.options.canaryTimeoutMs,
      watch: (key, onEvent) => this.watch(key, onEvent, { internal: true }),
      barrier: () => subscriber.ping(),
    });
  }

  private dispatch(channel: string, event: string): void {
    const entry = this.channels.get(channel);
    if (entry === undefined) return;
    for (const registration of entry.registrations) {
      try {
        registration.onHint(event);
      } catch (error) {
        this.logger.error({ err: errorLine(error), channel }, 'keyspace hint handler failed');
      }
    }
  }

  /** SUBSCRIBE `names` if live; settles on the reply, or when the connection closes. */
  private subscribe(names: string[]): Promise<void> {
    const subscriber = this.subscriber;
    if (!this.live || subscriber === undefined || subscriber.status !== 'ready') {
      // Not live: the next ready round subscribes every channel and resyncs every watcher.
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        this.onCloseWaiters.delete(done);
        resolve();
      };
      this.onCloseWaiters.add(done);
      subscriber.subscribe(...names).then(done, (error: unknown) => {
        if (error instanceof ReplyError) this.subscribeRefused(error as Error);
        else this.logger.debug({ err: errorLine(error) }, 'SUBSCRIBE failed');
        done();
      });
    });
  }

  /**
   * Redis refused SUBSCRIBE (NOPERM): nothing would be pushed, so the owner polls. Warned of
   * once per connection (the first refusal since it came up), whatever the mode was: polling
   * already (CONFIG refused too, the canary not heard yet) says nothing of the channels.
   */
  private subscribeRefused(error: Error): void {
    const first = !this.refused;
    this.refused = true;
    this.resubscribed = false;
    if (!first) return;
    this.logger.warn(
      { err: errorLine(error), pollIntervalMs: this.options.pollIntervalMs },
      'SUBSCRIBE is refused by this Redis: grant its user the keyspace channels ' +
        '(ACL: &__keyspace@*__:* or allchannels); until then watched queues are polled every ' +
        `${this.options.pollIntervalMs} ms`,
    );
    this.updateMode(false);
  }

  /** What the mode is now: SUBSCRIBE refused, else the canary's verdict, else CONFIG's. */
  private computeMode(): FeedMode {
    if (this.refused) return 'polling';
    if (this.canaryState !== 'unknown') {
      return this.canaryState === 'heard' ? 'notifications' : 'polling';
    }
    return this.configRefused ? 'polling' : 'notifications';
  }

  /** Apply {@link computeMode}; `missed`: a change also means watchers may have missed events. */
  private updateMode(missed: boolean): void {
    const mode = this.computeMode();
    if (mode === this.currentMode) return;
    this.currentMode = mode;
    this.options.onModeChange(mode);
    if (missed) this.options.onMissedEvents();
  }

  /** Run canary rounds, the first after `delayMs`, then `canaryIntervalMs` after each ends. */
  private startCanaryLoop(delayMs: number): void {
    const loop = ++this.canaryLoop;
    clearTimeout(this.canaryTimer);
    const next = (delay: number) => {
      if (this.stopped || loop !== this.canaryLoop) return;
      this.canaryTimer = setTimeout(() => {
        void this.canaryRound().then(() => next(this.options.canaryIntervalMs));
      }, delay);
      this.canaryTimer.unref();
    };
    next(delayMs);
  }

  /** One canary round and what follows from it; joins the round in flight. Never rejects. */
  private canaryRound(): Promise<void> {
    this.round ??= (async () => {
      const canary = this.canary;
      if (this.stopped || !this.resubscribed || canary === undefined) return;
      const epoch = this.epoch;
      const verdict = await canary.round();
      // A canary renewed meanwhile (its keys moved away): this round proves nothing.
      if (epoch !== this.epoch || this.stopped || canary !== this.canary) return;
      await this.onVerdict(verdict, epoch);
    })()
      .catch((error: unknown) => {
        this.logger.error({ err: errorLine(error) }, 'keyspace canary round failed');
      })
      .finally(() => {
        this.round = undefined;
      });
    return this.round;
  }

  private async onVerdict(verdict: CanaryVerdict, epoch: number): Promise<void> {
    if (verdict.kind === 'inconclusive') {
      if (!this.canaryUnsure) {
        this.canaryUnsure = true;
        this.logger.warn(
          { err: verdict.reason, mode: this.currentMode },
          `cannot check that keyspace notifications arrive (${verdict.reason}); the feed stays ` +
            `in ${this.currentMode} mode until a canary round can tell`,
        );
      }
      return;
    }
    this.canaryUnsure = false;
    const before = this.canaryState;
    if (verdict.kind === 'heard') {
      this.canaryState = 'heard';
      if (before === 'missed') {
        this.logger.info('keyspace notifications arrive again (the canary was heard): resyncing');
      }
      this.updateMode(true);
      return;
    }
    this.canaryState = 'missed';
    const config = await this.reapplyFlags();
    // A re-apply happened whatever came meanwhile (a reconnect, a renewed canary): say so.
    if (epoch !== this.epoch || this.stopped) {
      if (config.kind === 'reapplied') this.warnMissed(verdict, config, true);
      return;
    }
    this.warnMissed(verdict, config, before !== 'missed');
    this.updateMode(true);
    // Flags put back: hear the canary again now rather than a whole interval later.
    if (config.kind === 'reapplied') this.startCanaryLoop(0);
  }

  /** CONFIG GET, and SET what is missing, on the command connection; bounded in time. */
  private async reapplyFlags(): Promise<Reapplied> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${this.options.canaryTimeoutMs} ms`)),
        this.options.canaryTimeoutMs,
      );
    });
    try {
      const result = await Promise.race([
        (async () => applyNotifyConfig(this.options.node.commands()))(),
        timeout,
      ]);
      return result.changed
        ? { kind: 'reapplied', before: result.before, after: result.after }
        : { kind: 'unchanged', flags: result.after };
    } catch (error) {
      const err = errorLine(error);
      const refused = error instanceof ReplyError || error instanceof ConfigRefusedError;
      return { kind: refused ? 'refused' : 'failed', err };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The warning for an unheard round: what did not arrive, what CONFIG says, what is done. */
  private warnMissed(
    verdict: Extract<CanaryVerdict, { kind: 'missed' }>,
    config: Reapplied,
    first: boolean,
  ): void {
    const { canaryTimeoutMs, pollIntervalMs } = this.options;
    const unheard =
      verdict.flags === 'K'
        ? `no keyspace event of the canary arrived within ${canaryTimeoutMs} ms`
        : `the canary's ${verdict.unheard.join(', ')} events did not arrive within ` +
          `${canaryTimeoutMs} ms`;
    const polled =
      `watched rings, groups and jobs are re-read (RESYNC) and polled every ${pollIntervalMs} ms ` +
      'until the canary is heard again';
    const fields = { unheard: verdict.unheard, needed: NEEDED_FLAGS, pollIntervalMs };
    if (config.kind === 'reapplied') {
      // Someone changed the setting under a live server: worth a warning every time.
      this.logger.warn(
        { ...fields, before: config.before, after: config.after },
        `notify-keyspace-events was changed under this server to ${JSON.stringify(config.before)} ` +
          `(missing "${missingFlags(config.before)}"): ${unheard}. Re-applied ` +
          `${JSON.stringify(config.after)}; ${polled}`,
      );
      return;
    }
    const level = first ? 'warn' : 'debug';
    if (config.kind === 'unchanged') {
      this.logger[level](
        { ...fields, flags: config.flags },
        `keyspace notifications do not arrive: ${unheard}, though notify-keyspace-events is ` +
          `${JSON.stringify(config.flags)} (a stalled subscriber connection, or a proxy that ` +
          `drops pub/sub); ${polled}`,
      );
    } else if (config.kind === 'refused') {
      this.logger[level](
        { ...fields, err: config.err },
        `keyspace notifications do not arrive (${unheard}) and CONFIG is refused by this ` +
          `Redis: set notify-keyspace-events to include "${NEEDED_FLAGS}" (e.g. in the managed ` +
          `service’s parameter settings); until then ${polled}`,
      );
    } else {
      this.logger[level](
        { ...fields, err: config.err },
        `keyspace notifications do not arrive (${unheard}) and notify-keyspace-events could ` +
          `not be read (${config.err}); ${polled}`,
      );
    }
  }

  private onClose(): void {
    this.epoch++;
    if (this.live) {
      this.logger.warn('keyspace subscriber disconnected; reconnecting');
    }
    this.live = false;
    this.resubscribed = false;
    this.settleCloseWaiters();
  }

  private settleCloseWaiters(): void {
    for (const settle of [...this.onCloseWaiters]) settle();
  }

  /** A (re)connect: config, then subscribe everything, then tell watchers to resync. */
  private async onReady(): Promise<void> {
    const epoch = ++this.epoch;
    const subscriber = this.subscriber;
    if (this.stopped || subscriber === undefined) return;
    let mode: FeedMode;
    try {
      const result = await applyNotifyConfig(subscriber);
      if (epoch !== this.epoch) return;
      mode = 'notifications';
      const level = result.changed ? 'info' : 'debug';
      this.logger[level](
        { before: result.before, after: result.after },
        'keyspace notifications configured',
      );
    } catch (error) {
      if (epoch !== this.epoch) return;
      if (!(error instanceof ReplyError) && !(error instanceof ConfigRefusedError)) {
        // The connection failed under us; the next 'ready' starts over.
        this.logger.warn({ err: errorLine(error) }, 'could not apply the notification config');
        return;
      }
      mode = 'polling';
      // Not yet a warning: a managed Redis may publish the events already (set by its
      // operator). The canary tells, and warns with the flags to set if they do not arrive.
      this.logger.info(
        { err: errorLine(error), needed: NEEDED_FLAGS },
        'CONFIG is refused by this Redis, so this server cannot set notify-keyspace-events; ' +
          'the keyspace canary checks whether notifications arrive',
      );
    }
    this.configRefused = mode === 'polling';
    this.live = true;
    this.refused = false;
    this.updateMode(false);
    const names = [...this.channels.keys()];
    if (names.length > 0) await this.subscribe(names);
    if (epoch !== this.epoch || this.stopped) return;
    // Refused: the connection is up but subscribes nothing (the mode is polling now).
    this.resubscribed = !this.refused;
    if (this.liveOnce) {
      this.logger.info({ channels: names.length }, 'keyspace subscriber reconnected; resyncing');
      this.options.onReconnect();
      // The flags were just (re)applied, or not: hear the canary on the new connection now.
      this.startCanaryLoop(0);
    } else {
      this.liveOnce = true;
      this.firstLive?.();
      this.firstLive = undefined;
    }
  }
}
