/**
 * The engine's entry point: per-queue handles over one Redis connection, and the queue
 * registry. Knows nothing of GraphQL; every entry point (GraphQL, workers, scripts) uses it.
 */

import { createHash } from 'node:crypto';
import { probeKey, queuesKey } from './keys.js';
import { Defaults, Queue } from './queue/queue.js';
import { isCluster, masterClients, masterKeyOf, type RedisClient } from './redis/client.js';
import { Connection } from './redis/connection.js';
import { closeConnection, openConnection, type RedisConnection } from './redis/connectionOption.js';
import { callOpen } from './redis/ended.js';
import { type EvictionCheck, EvictionPolicyError, readEvictionPolicy } from './redis/eviction.js';
import { assertPlainKeys } from './redis/plainKeys.js';
import type { StateLoss } from './redis/stateLoss.js';
import type { ScriptObserver } from './scripts/commands.js';
import * as validate from './validate.js';

/** The oldest Redis (major, minor) whose commands the scripts use. */
const MIN_REDIS = [6, 2] as const;

/** Engine settings. */
export interface RingmasterOptions {
  /**
   * Key prefix `P` (DESIGN.md §2): 1 to 64 of A-Z a-z 0-9 . _ - : (the server's `KEY_PREFIX`
   * rule; anything else is BAD_USER_INPUT `prefix`). Default `emq`.
   */
  readonly prefix?: string;
  /**
   * Called by {@link Ringmaster.queues} for each member of `P:queues` that is not a valid queue
   * name (left there by another writer or a hand edit), each time it is skipped. Default: none.
   */
  readonly onInvalidQueueName?: (name: string) => void;
  /**
   * Called after every script call of this engine's queue handles (and their workers), with the
   * script's name (`claim`, `enqueue`, …), its duration (ms, from sending to the reply,
   * NOSCRIPT retries and a library load included) and whether it succeeded (false when it
   * threw: a Redis error, a refused stored number; a reply saying "no such job" is a success). For a latency
   * histogram (the server's `ringmaster_script_duration_seconds`, DESIGN.md §4.7). Must be
   * cheap; what it throws is ignored. Default: none.
   */
  readonly onScript?: ScriptObserver;
  /**
   * Called once for each queue this engine used whose state Redis lost (DESIGN.md §3, "A Redis
   * that lost a queue's state"): the queue, the cause, what its last check found and the one
   * line to log ({@link StateLoss}). Must be cheap; what it throws is ignored. Default: none
   * (the loss is still handled: its ids are not minted again).
   */
  readonly onStateLost?: (loss: StateLoss) => void;
  /** Every queue handle's `actor` (`QueueOptions.actor`, DESIGN.md §4.6). Default 'engine'. */
  readonly actor?: string;
  /**
   * Every queue handle's `historyMaxLen`: the most entries a queue's steering history keeps
   * (count; 0 records none; `QueueOptions.historyMaxLen`). Default `Defaults.historyMaxLen`.
   */
  readonly historyMaxLen?: number;
}

/** The right call, ending every refusal of the connection. */
const RINGMASTER_EXAMPLE = 'new Ringmaster(new Redis(url), { prefix })';

export class Ringmaster {
  /** Key prefix `P`. */
  readonly prefix: string;
  /** The shared connection every queue handle uses. */
  readonly redis: RedisClient;
  /** This engine opened `redis` (from a URL or options) and {@link close} closes it. */
  private readonly owned: boolean;
  private closing: Promise<void> | undefined;

  private readonly onInvalidQueueName: ((name: string) => void) | undefined;
  /** What every queue handle is made with besides the prefix (history actor and cap). */
  private readonly handleOptions: { actor?: string; historyMaxLen?: number };
  /** What every queue handle shares of `redis`: its defined scripts and registrations. */
  private readonly connection: Connection;

  /**
   * @param connection the shared (non-blocking) connection every queue handle uses: an ioredis
   *   `Redis` or `Cluster` (the caller's to close), or a `redis://`/`rediss://` URL or ioredis
   *   options naming the server, from which the engine opens a `Redis` it owns and
   *   {@link close} closes (DESIGN.md §4.1, "Connections")
   * @throws RingmasterError BAD_USER_INPUT, one line ending with the right call (argument
   *   `redis`), for a connection of any other kind (a number, null, another object, a URL of
   *   another scheme, options naming no server), or one that moves keys (ioredis `keyPrefix`,
   *   a SELECT away from its `db` option): see {@link assertPlainKeys}; (argument `prefix`)
   *   for a prefix not 1 to 64 of A-Z a-z 0-9 . _ - :; or when a callback
   *   option (`onInvalidQueueName`, `onScript`) is given and is not a function, or (argument
   *   `options` / `options.<name>`) when `options` is not an object or holds an unknown name.
   *   Nothing is opened then.
   */
  constructor(connection: RedisConnection, ringmasterOptions: RingmasterOptions = {}) {
    const options = validate.options('options', ringmasterOptions, {
      prefix: true,
      onInvalidQueueName: true,
      onScript: true,
      onStateLost: true,
      actor: true,
      historyMaxLen: true,
    });
    validate.callback('onInvalidQueueName', options.onInvalidQueueName, true);
    validate.callback('onScript', options.onScript, true);
    validate.callback('onStateLost', options.onStateLost, true);
    this.prefix =
      options.prefix === undefined ? Defaults.prefix : validate.keyPrefix(options.prefix);
    this.handleOptions = {
      ...(options.actor == null ? {} : { actor: validate.actor(options.actor, 'options.actor') }),
      ...(options.historyMaxLen === undefined ? {} : { historyMaxLen: options.historyMaxLen }),
    };
    const opened = openConnection(connection, 'redis', RINGMASTER_EXAMPLE, this.prefix);
    this.redis = opened.redis;
    this.owned = opened.owned;
    if (!opened.owned) assertPlainKeys(this.redis, { prefix: this.prefix });
    this.onInvalidQueueName = options.onInvalidQueueName;
    this.connection = new Connection(this.redis, options.onScript, options.onStateLost);
  }

  /**
   * Close the connection this engine opened from a URL or options (QUIT once the replies of
   * the calls sent before arrive; DESIGN.md §4.1, "Connections"); an engine given a client
   * closes nothing. Its queue handles share the connection: close them no further. Once it
   * is closed, the engine's calls and its handles' are refused at once, nothing sent, with
   * RingmasterError CONNECTION_CLOSED (as when a client it was given has ended: `quit()`,
   * `disconnect()`): make a new engine. Resolves once closed; never throws.
   */
  close(): Promise<void> {
    this.closing ??= this.owned ? closeConnection(this.redis) : Promise.resolve();
    return this.closing;
  }

  /**
   * Ask Redis now whether it still holds the state of every queue this engine used (one
   * `checkEpoch-5.lua` call per queue; DESIGN.md §3, "A Redis that lost a queue's state"). A
   * loss found is reported to `onStateLost`, once. The engine also asks by itself: on every
   * reconnect, and when a queue is written or reaped a second or more after its last check; a
   * long-running process that may not use a queue for a while (a server) calls this now and
   * then. Resolves when every check is answered; a check that fails is skipped (asked again
   * next time), so it never throws.
   */
  checkState(): Promise<void> {
    return this.call(() => this.connection.state.checkAll());
  }

  /**
   * A handle on queue `name`. Cheap, and touches nothing in Redis, so it is made per call
   * rather than cached (a cache keyed by caller-chosen names would grow without bound); the
   * per-connection state (defined scripts, registrations) is this engine's, shared by all.
   * `Payload` and `Result` type its jobs (see {@link Queue}).
   * @throws RingmasterError BAD_USER_INPUT for an invalid queue name
   */
  queue<Payload = unknown, Result = unknown>(name: string): Queue<Payload, Result> {
    return new Queue(this.connection, name, { prefix: this.prefix, ...this.handleOptions });
  }

  /**
   * Check that the server can keep Ringmaster's state: Redis 6.2 or newer (the scripts use LPOP
   * with a count, ZMSCORE and SMISMEMBER), and `maxmemory-policy noeviction` (any other policy
   * lets Redis drop jobs, lanes and the ring at `maxmemory`: {@link checkEviction}), and that
   * this connection's user may run the scripts (EVAL, EVALSHA) on the prefix's keys, reading and
   * writing (a never-written probe key per master, read and deleted: nothing changes). Call once
   * after connecting; resolves to the version found (on a Redis Cluster, every master is
   * checked and the oldest version is the one reported). The policy can be changed at runtime
   * (CONFIG SET), so a long-running process should call {@link checkEviction} now and then, as
   * the server does.
   * @throws Error naming the version found when it is older
   * @throws EvictionPolicyError (`policy`) naming the policy and the fix when it is not
   *   `noeviction`
   * @throws RingmasterError REDIS_NOT_PERMITTED naming what Redis refused (a command, a key)
   *   and what to grant its ACL user (DESIGN.md §6)
   * @throws RingmasterError REDIS_UNAVAILABLE when Redis cannot be reached
   */
  checkServer(): Promise<string> {
    return this.call(() => this.serverChecked());
  }

  /** {@link checkServer}'s checks, in its order. */
  private async serverChecked(): Promise<string> {
    const masters = await masterClients(this.redis);
    const found = await Promise.all(
      masters.map(async (node) => {
        const info = await node.info('server');
        const version = /^redis_version:(\S+)/m.exec(info)?.[1] ?? 'unknown';
        return { version, parts: version.split('.').map(Number), node: node.options };
      }),
    );
    // Oldest first (major, minor, patch), so the one refused or reported is the oldest.
    found.sort((a, b) => {
      for (let i = 0; i < 3; i++) {
        const d = (a.parts[i] || 0) - (b.parts[i] || 0);
        if (d !== 0) return d;
      }
      return 0;
    });
    const oldest = found[0];
    const [major = 0, minor = 0] = oldest?.parts ?? [];
    if (!(major > MIN_REDIS[0] || (major === MIN_REDIS[0] && minor >= MIN_REDIS[1]))) {
      const where =
        masters.length > 1 ? ` (the master at ${oldest?.node.host}:${oldest?.node.port})` : '';
      throw new Error(
        `Redis ${oldest?.version ?? 'unknown'}${where} is too old: Ringmaster needs Redis ${MIN_REDIS.join('.')} or newer`,
      );
    }
    await this.checkAccess();
    const eviction = await this.checkEviction();
    if (!eviction.ok) throw new EvictionPolicyError(eviction.policy);
    return oldest?.version ?? 'unknown';
  }

  /**
   * Whether this connection's user may run the scripts on the prefix's keys (DESIGN.md §6): on
   * every master, a script declaring a probe key under the prefix (`probeKey`, never written) that reads
   * it and deletes it (a write of nothing, so a read-only user is found) after reading Redis'
   * clock (TIME, as every script does), sent as EVALSHA and as EVAL, the two ways ioredis sends
   * the scripts. Changes nothing in Redis.
   * @throws RingmasterError REDIS_NOT_PERMITTED in one line naming what Redis refused and what
   *   to grant (commands, keys `~<prefix>:*`)
   */
  private async checkAccess(): Promise<void> {
    // A refusal is mapped, the prefix named, by the `call` checkServer goes through.
    for (const key of await this.guardKeys()) {
      // EVALSHA first: Redis checks the ACL before it looks the script up, so NOSCRIPT (a
      // cache this EVAL's did not reach: a proxy, a failover) already says it is allowed.
      await this.redis.evalsha(ACCESS_PROBE_SHA, 1, key).catch((error: unknown) => {
        if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
      });
      await this.redis.eval(ACCESS_PROBE, 1, key);
    }
  }

  /** One probe key under the prefix per master (a single Redis: one), each in a slot it serves. */
  private async guardKeys(): Promise<string[]> {
    const redis = this.redis;
    if (!isCluster(redis)) return [probeKey(this.prefix, 0)];
    await masterClients(redis);
    const masters = new Set(redis.slots.map((nodes) => nodes?.[0]).filter(Boolean));
    const keys: string[] = [];
    const covered = new Set<string>();
    for (let i = 0; covered.size < masters.size && i < 1_000_000; i++) {
      const key = probeKey(this.prefix, i);
      const master = masterKeyOf(redis, key);
      if (master !== '' && !covered.has(master)) {
        covered.add(master);
        keys.push(key);
      }
    }
    return keys;
  }

  /**
   * Whether Redis may evict keys: `policy` is `maxmemory_policy` from `INFO memory` (so it works
   * where CONFIG is refused, as on a managed Redis), `ok` is true only for `noeviction`.
   * One round trip; throws nothing of its own (a lost connection rejects as ioredis does).
   */
  checkEviction(): Promise<EvictionCheck> {
    return this.call(() => readEvictionPolicy(this.redis));
  }

  /**
   * Names of every queue ever steered or enqueued to (`P:queues`), sorted. A member that is not
   * a valid queue name (DESIGN.md §5; written by another writer or by hand) is skipped and
   * reported to `onInvalidQueueName`, so every name returned can be passed to {@link queue}.
   * @throws RingmasterError REDIS_UNAVAILABLE when Redis cannot be reached
   */
  queues(): Promise<string[]> {
    return this.call(async () => {
      const names: string[] = [];
      for (const name of await this.redis.smembers(queuesKey(this.prefix))) {
        if (validate.isQueueName(name)) names.push(name);
        else this.onInvalidQueueName?.(name);
      }
      return names.sort();
    });
  }

  /** The one way every method that reaches Redis goes (`callOpen`). */
  private call<T>(run: () => Promise<T>): Promise<T> {
    return callOpen(this.redis, 'Ringmaster', this.prefix, undefined, run);
  }
}

/**
 * `checkAccess`'s script: reads Redis' clock as every script does, reads its probe key and
 * deletes it (never written: a no-op).
 */
const ACCESS_PROBE =
  "redis.call('TIME') redis.call('EXISTS', KEYS[1]) return redis.call('DEL', KEYS[1])";
const ACCESS_PROBE_SHA = createHash('sha1').update(ACCESS_PROBE).digest('hex');
