/**
 * The keyspace event source (STYLE.md 11): ONE dedicated subscriber connection per feed, with
 * reference-counted channels — SUBSCRIBE `__keyspace@<db>__:<key>` on the first watcher of a key,
 * UNSUBSCRIBE on the last. A message is only a hint that a key was touched; watchers re-read.
 *
 * On every (re)connect ('ready'), before any SUBSCRIBE, it applies the notification config on
 * this same connection (a fresh connection is not yet in subscriber mode), then subscribes every
 * watched channel and, after a reconnect, calls `onReconnect` so watchers resync. ioredis' own
 * resubscribe, offline queue and resend of unfulfilled commands are off, so nothing reaches the
 * new connection ahead of the CONFIG commands; the source resubscribes itself.
 *
 * When CONFIG is refused the mode is 'polling': channels are still subscribed (a managed Redis
 * may already publish the events) and the owner polls. So it is when Redis refuses the SUBSCRIBE
 * itself (an ACL user without the keyspace channels, Redis 7's default for a new user): no event
 * would ever arrive, and the owner polls until a reconnect finds the permission granted.
 */
import { type Redis, ReplyError } from 'ioredis';
import type { Logger } from 'pino';
import { assertPlainKeys } from '../lanes/connection.js';
import { applyNotifyConfig, ConfigRefusedError, NEEDED_FLAGS } from './notifyConfig.js';

export type FeedMode = 'notifications' | 'polling';

/** A watch on one key: `ready` settles once its channel is subscribed (or cannot be now). */
export interface KeyWatch {
  readonly ready: Promise<void>;
  /** Stop watching; the last release of a channel unsubscribes it. Idempotent. */
  release(): void;
}

export interface KeyspaceSourceOptions {
  /** The connection to duplicate (same server, db and credentials). */
  readonly redis: Redis;
  readonly logger: Logger;
  /** For the log line that says how often the owner polls when CONFIG is refused (ms). */
  readonly pollIntervalMs: number;
  /** After a reconnect, once every watched channel is subscribed again. */
  readonly onReconnect: () => void;
  /** The mode changed (at start, or at a reconnect). */
  readonly onModeChange: (mode: FeedMode) => void;
}

interface Registration {
  readonly onHint: () => void;
}

interface Channel {
  readonly registrations: Set<Registration>;
  readonly ready: Promise<void>;
}

export class KeyspaceSource {
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
  private firstLive: (() => void) | undefined;
  /** Settled when the connection closes: pending SUBSCRIBE replies may never come. */
  private readonly onCloseWaiters = new Set<() => void>();

  constructor(private readonly options: KeyspaceSourceOptions) {
    this.db = options.redis.options.db ?? 0;
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

  /** Channels subscribed or to be subscribed (count). */
  get channelCount(): number {
    return this.channels.size;
  }

  /**
   * Connect, apply the notification config, and go live.
   * @throws RingmasterError BAD_USER_INPUT when `redis` moves keys ({@link assertPlainKeys}):
   *   the channels named from unprefixed keys, on `options.db`, would never fire
   */
  async start(): Promise<void> {
    assertPlainKeys(this.options.redis);
    const subscriber = this.options.redis.duplicate({
      lazyConnect: true,
      enableOfflineQueue: false,
      autoResubscribe: false,
      autoResendUnfulfilledCommands: false,
      // Whatever the connection it duplicates does: a subscriber has nothing to batch.
      enableAutoPipelining: false,
    });
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string) => this.dispatch(channel));
    subscriber.on('error', (error: Error) => {
      this.logger.debug({ err: error.message }, 'keyspace subscriber connection error');
    });
    subscriber.on('close', () => this.onClose());
    subscriber.on('ready', () => {
      void this.onReady();
    });
    const live = new Promise<void>((resolve) => {
      this.firstLive = resolve;
    });
    try {
      await subscriber.connect();
    } catch (error) {
      subscriber.disconnect();
      throw error;
    }
    await live;
  }

  /** Watch `key`: `onHint` runs on every keyspace event of it. */
  watch(key: string, onHint: () => void): KeyWatch {
    const name = `__keyspace@${this.db}__:${key}`;
    let channel = this.channels.get(name);
    if (channel === undefined) {
      channel = { registrations: new Set(), ready: this.subscribe([name]) };
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
            this.logger.debug({ err: String(error), channel: name }, 'UNSUBSCRIBE failed');
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

  private dispatch(channel: string): void {
    const entry = this.channels.get(channel);
    if (entry === undefined) return;
    for (const registration of entry.registrations) {
      try {
        registration.onHint();
      } catch (error) {
        this.logger.error({ err: String(error), channel }, 'keyspace hint handler failed');
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
        else this.logger.debug({ err: String(error) }, 'SUBSCRIBE failed');
        done();
      });
    });
  }

  /** Redis refused SUBSCRIBE (NOPERM): nothing would be pushed, so the owner polls. */
  private subscribeRefused(error: Error): void {
    this.refused = true;
    this.resubscribed = false;
    if (this.currentMode === 'polling') return;
    this.logger.warn(
      { err: error.message, pollIntervalMs: this.options.pollIntervalMs },
      'SUBSCRIBE is refused by this Redis: grant its user the keyspace channels ' +
        '(ACL: &__keyspace@*__:* or allchannels); until then watched queues are polled every ' +
        `${this.options.pollIntervalMs} ms`,
    );
    this.currentMode = 'polling';
    this.options.onModeChange('polling');
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
        this.logger.warn({ err: String(error) }, 'could not apply the notification config');
        return;
      }
      mode = 'polling';
      this.logger.warn(
        {
          err: error instanceof Error ? error.message : String(error),
          needed: NEEDED_FLAGS,
          pollIntervalMs: this.options.pollIntervalMs,
        },
        `CONFIG is refused by this Redis: set notify-keyspace-events to include "${NEEDED_FLAGS}" ` +
          '(e.g. in the managed service’s parameter settings); until then watched queues are ' +
          `polled every ${this.options.pollIntervalMs} ms`,
      );
    }
    if (mode !== this.currentMode) {
      this.currentMode = mode;
      this.options.onModeChange(mode);
    }
    this.live = true;
    this.refused = false;
    const names = [...this.channels.keys()];
    if (names.length > 0) await this.subscribe(names);
    if (epoch !== this.epoch || this.stopped) return;
    // Refused: the connection is up but subscribes nothing (the mode is polling now).
    this.resubscribed = !this.refused;
    if (this.liveOnce) {
      this.logger.info({ channels: names.length }, 'keyspace subscriber reconnected; resyncing');
      this.options.onReconnect();
    } else {
      this.liveOnce = true;
      this.firstLive?.();
      this.firstLive = undefined;
    }
  }
}
