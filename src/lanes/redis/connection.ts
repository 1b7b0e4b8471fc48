/**
 * What the engine keeps per ioredis connection: the scripts defined on it, and which queues it
 * registered in `P:queues` lately. Each {@link Ringmaster} owns one, shared by every queue
 * handle it makes; a `Queue` made on a bare client uses that client's ({@link Connection.of}),
 * so handles stay cheap to make per call either way (no registration round trip per call).
 */
import { defineScripts, type ScriptObserver } from '../scripts/commands.js';
import type { RedisClient } from './client.js';
import { type StateLoss, StateWatch } from './stateLoss.js';

/**
 * How long (ms) a queue this connection's SADD registered is taken to be in `P:queues` still,
 * so that a busy producer or an admin UI does not send the same SADD with every call. It bounds
 * how long a registry entry removed by hand (or a FLUSHALL) stays missing while this process
 * keeps writing to the queue: the reaper, which finds queues there, reaps it again after that.
 */
export const REGISTRATION_REFRESH_MS = 5_000;

/**
 * One connection's engine state. Making one defines the scripts on `redis` unless they are
 * defined there already (by another Connection on the same client), so each client compiles
 * them once. Throws nothing; touches nothing in Redis.
 */
export class Connection {
  /** The Connection of each bare client, so `Queue` handles made per call on it share it. */
  static #byClient = new WeakMap<RedisClient, Connection>();

  /** The Connection of `redis`, made on first use (scripts defined then, once per client). */
  static of(redis: RedisClient): Connection {
    let connection = Connection.#byClient.get(redis);
    if (connection === undefined) {
      connection = new Connection(redis);
      Connection.#byClient.set(redis, connection);
    }
    return connection;
  }

  /**
   * Registry key + queue name → when its SADD was last answered (ms, local clock), or the SADD
   * still on the wire.
   */
  private readonly registrations = new Map<string, number | Promise<void>>();

  /** Queue base (`P:{Q}:`) → its job layout was found right, or that check on the wire. */
  private readonly layouts = new Map<string, true | Promise<void>>();

  /** Whether Redis lost the state of a queue this connection used (stateLoss.ts). */
  readonly state: StateWatch;

  /**
   * @param redis a connection shared by all calls (not used for blocking commands)
   * @param onScript told of every script call made through this connection (name, ms, ok):
   *   `RingmasterOptions.onScript`
   * @param onStateLost told once of each queue whose state Redis lost:
   *   `RingmasterOptions.onStateLost`
   */
  constructor(
    readonly redis: RedisClient,
    readonly onScript?: ScriptObserver,
    onStateLost?: (loss: StateLoss) => void,
  ) {
    defineScripts(redis);
    this.state = new StateWatch(redis, onStateLost);
  }

  /**
   * Register `queue` in `registry` with `register` (a SADD, or a script that does it), then run
   * `run`: the first registration is answered before `run` is sent, so a call whose SADD fails
   * reports that error having changed nothing. Once answered, it is not sent again for this
   * (registry, queue) on this connection for {@link REGISTRATION_REFRESH_MS}; calls made while
   * the first is on the wire wait for it rather than sending their own. A failed registration
   * is forgotten, so the next call sends its own (and reports its own error).
   *
   * After that the SADD is sent again at most every {@link REGISTRATION_REFRESH_MS}, with the
   * call rather than before it: the name is in the registry already (unless removed by hand,
   * which this puts right), so the call need not wait, and a registry that is slow or down (on
   * a Redis Cluster, `P:queues` lives on one master, maybe not this queue's) holds up no call
   * to a queue registered before. A refresh that fails is tried again with a call after the
   * next {@link REGISTRATION_REFRESH_MS}.
   */
  registered<T>(
    registry: string,
    queue: string,
    register: () => Promise<unknown>,
    run: () => Promise<T>,
  ): Promise<T> {
    const known = this.registrations;
    const member = `${registry}\n${queue}`;
    const entry = known.get(member);
    if (typeof entry === 'number') {
      if (Date.now() - entry >= REGISTRATION_REFRESH_MS) {
        known.set(member, Date.now());
        // Sent before `run` on the same client, so on one Redis it is applied first anyway.
        register().catch(() => {});
      }
      return run();
    }
    if (entry instanceof Promise) return entry.then(run);
    const sadd = register().then(
      () => {
        known.set(member, Date.now());
      },
      (error: unknown) => {
        if (known.get(member) === sadd) known.delete(member);
        throw error;
      },
    );
    known.set(member, sadd);
    return sadd.then(run);
  }

  /**
   * Run `run` once the job layout of the queue at `base` (`P:{Q}:`) is known to be the engine's
   * (DESIGN.md §2, "Job layout"): the first call per queue on this connection awaits `check`
   * (`Queue`'s, which throws for a queue of another layout and answers whether the queue is
   * marked); once it passed on a marked queue it is not asked again (a layout never changes
   * back: enqueue marks a queue as it mints its first id, so a queue emptied by hand or a
   * FLUSHALL is marked again by its next job). A pass on an unmarked queue (one that never
   * minted an id) is not kept: another program may write old-layout jobs there before this
   * engine's first enqueue marks it. Calls made while the check is on the wire wait for it. A
   * failed check is forgotten, so the next call asks again (and fails again until the queue is
   * drained).
   */
  laidOut<T>(base: string, check: () => Promise<boolean>, run: () => Promise<T>): Promise<T> {
    const entry = this.layouts.get(base);
    if (entry === true) return run();
    if (entry !== undefined) return entry.then(run);
    const checked = check().then(
      (marked) => {
        if (marked) this.layouts.set(base, true);
        else if (this.layouts.get(base) === checked) this.layouts.delete(base);
      },
      (error: unknown) => {
        if (this.layouts.get(base) === checked) this.layouts.delete(base);
        throw error;
      },
    );
    this.layouts.set(base, checked);
    return checked.then(run);
  }
}
