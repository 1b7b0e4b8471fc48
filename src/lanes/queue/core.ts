/**
 * What every part of a `Queue` handle shares: who the queue is (name, prefix, keys, the
 * registry key), what it talks through (the client, the engine's per-connection state, the
 * typed scripts), who its steering is recorded as, and the helpers the parts' calls go through
 * — the history ARGV, registration in `P:queues`, the job-layout check and the state-loss
 * watch. `queue.ts` makes one per handle and hands it to each part; it sends nothing itself.
 */
import type { QueueKeys } from '../keys.js';
import type { RedisClient } from '../redis/client.js';
import type { Connection } from '../redis/connection.js';
import type { Commands } from '../scripts/commands.js';
import type { SteeringOptions } from '../types.js';
import * as validate from '../validate.js';
import { askLayout } from './layout.js';

/** The names a steering call's options may hold (`validate.options` refuses others). */
const STEERING: validate.OptionNames<SteeringOptions> = { actor: true };

export class QueueCore {
  /** The connection shared by all calls (not used for blocking commands). */
  readonly redis: RedisClient;

  constructor(
    /** The queue name (validated). */
    readonly name: string,
    /** The key prefix `P` (DESIGN.md §2). */
    readonly prefix: string,
    /** The queue's keys (DESIGN.md §2). */
    readonly keys: QueueKeys,
    /** The registry key `P:queues`. */
    readonly registry: string,
    /** The engine's state of the connection: registrations, layouts, the state-loss watch. */
    readonly connection: Connection,
    /** The typed script wrappers on the queue's keys. */
    readonly commands: Commands,
    /** Who steering calls are recorded as when they name no actor (DESIGN.md §4.6). */
    readonly actor: string,
    /** The queue history stream's cap (count). */
    readonly historyMaxLen: number,
  ) {
    this.redis = connection.redis;
  }

  /**
   * The history ARGV every steering script takes (`historyArgs` in includes/history.lua):
   * [actor, cap] — the call's actor, else this handle's, and the queue stream's cap (count).
   * Checks the options object first (`validate.options`, names `known`, refused as `path`), so
   * a steering call computes it before anything is sent.
   * @throws RingmasterError BAD_USER_INPUT for options that are not an object or hold an
   *   unknown name
   */
  historyArgs(
    options?: SteeringOptions,
    path = 'options',
    known: validate.OptionNames<SteeringOptions> = STEERING,
  ): [actor: string, cap: number] {
    const given = validate.options(path, options, known).actor;
    return [
      given == null ? this.actor : validate.actor(given, `${path}.actor`),
      this.historyMaxLen,
    ];
  }

  /**
   * {@link registered} for a steering script: the registry's SADD goes through `register-1.lua`,
   * which Redis runs at maxmemory as it runs the steering scripts, so registering never fails a
   * pause or setLimit during a memory incident (Redis refuses a plain SADD there even for a name
   * the set holds already).
   */
  steered<T>(run: () => Promise<T>): Promise<T> {
    return this.registered(run, () =>
      this.commands.register({ registry: this.registry, queue: this.name }),
    );
  }

  /**
   * Run `run` once the queue's job layout is known to be this version's on this connection
   * (`askLayout` of layout.ts, asked before the first enqueue or claim; a marked queue is not asked
   * again on the connection, an unmarked one is, see redis/connection.ts `laidOut`).
   * @throws RingmasterError LAYOUT_MISMATCH
   */
  laidOut<T>(run: () => Promise<T>): Promise<T> {
    return this.connection.laidOut(
      this.keys.base,
      () => askLayout(this.commands, this.name, this.keys.settings),
      run,
    );
  }

  /**
   * Register the queue in `P:queues`, then run the registering script `run`: the SADD is
   * answered before the script is sent, so a call whose SADD fails (a registry key of the
   * wrong type, an ACL that may not write it, a cluster node answering MOVED for it: `P:queues`
   * is outside the queue's slot, so it cannot be inside the script) reports that error having
   * changed nothing, and a call that reports success is in the registry the reaper and
   * `Ringmaster.queues` read. Once answered, the SADD is not sent again for this queue on this
   * connection for {@link REGISTRATION_REFRESH_MS}: the registry only ever needs the name once,
   * so the wait costs one round trip per queue per connection every 5 s, not one per call.
   * Calls made while a SADD is on the wire wait for that one rather than sending their own.
   */
  registered<T>(
    run: () => Promise<T>,
    register: () => Promise<unknown> = () => this.redis.sadd(this.registry, this.name),
  ): Promise<T> {
    // Only after a call that succeeded: a refused one has written nothing, the epoch included.
    return this.connection.registered(this.registry, this.name, register, run).then((result) => {
      this.watchState();
      return result;
    });
  }

  /**
   * The queue is written or reaped: its connection remembers its epoch, and asks Redis again
   * whether it still holds the queue when the last ask is a second old (stateLoss.ts; DESIGN.md
   * §3, "A Redis that lost a queue's state"). Sends nothing most of the time; never waits.
   */
  watchState(): void {
    this.connection.state.touch(this.keys.base, () => ({
      queue: this.name,
      check: (p) => this.commands.checkEpoch(p),
    }));
  }
}
