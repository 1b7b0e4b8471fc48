/**
 * The keyspace canary: proof, not trust, that keyspace notifications still
 * arrive. Another client can run `CONFIG SET notify-keyspace-events ""` (or drop one class, say
 * `l`) under a live server; Redis then simply stops publishing, and nothing else tells.
 *
 * A round writes one tiny key of each type the feed watches, in one MULTI that deletes them
 * again, so no canary key ever exists outside the transaction (nothing for a reader, a snapshot
 * or an audit to see), and expects on the subscriber connection, within a bound, every event
 * that write raises:
 *
 * | key                        | events        | proves the flags |
 * | -------------------------- | ------------- | ---------------- |
 * | `P:canary:{<id>}:l` (list) | `rpush`, `del` | `K`, `l`, `g`    |
 * | `P:canary:{<id>}:h` (hash) | `hset`, `del`  | `K`, `h`, `g`    |
 * | `P:canary:{<id>}:s` (set)  | `sadd`, `del`  | `K`, `s`, `g`    |
 * | `P:canary:{<id>}:z` (zset) | `zadd`, `del`  | `K`, `z`, `g`    |
 * | `P:canary:{<id>}:t` (stream) | `xadd`, `del` | `K`, `t`, `g`   |
 *
 * — every class of {@link NEEDED_FLAGS}. `P:canary:` cannot collide with a queue's keys (they
 * all start `P:{`) nor with the registry `P:queues`; `<id>` is the feed's own, so two servers on
 * one Redis never hear each other's canary. `<id>` is also the keys' hash tag: on a Redis
 * Cluster each master's canary gets an id whose slot that master owns, so the round proves that
 * master publishes.
 *
 * Before the write, a PING on the subscriber connection is a barrier: Redis answers it after
 * every message it had already published to that connection, so an event of an earlier round
 * that arrives late is never counted for this one.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { errorLine } from '../lanes/errors.js';
import { canaryKey } from '../lanes/keys.js';
import { NEEDED_FLAGS } from './notifyConfig.js';
import type { KeyWatch } from './source.js';

/** One canary key per notification class a type event proves (see the module table). */
const PROBES = [
  { suffix: 'l', event: 'rpush', flag: 'l' },
  { suffix: 'h', event: 'hset', flag: 'h' },
  { suffix: 's', event: 'sadd', flag: 's' },
  { suffix: 'z', event: 'zadd', flag: 'z' },
  { suffix: 't', event: 'xadd', flag: 't' },
] as const;

/** The generic event every canary key raises when the MULTI deletes it (class `g`). */
const GENERIC_EVENT = 'del';

/** The flags a heard round proves: `K` (keyspace channels), each probe's class, and `g`. */
const CANARY_FLAGS = `K${PROBES.map((p) => p.flag).join('')}g`;

/** What one round found. */
export type CanaryVerdict =
  /** Every expected event arrived within the bound. */
  | { readonly kind: 'heard' }
  /**
   * The write was acknowledged, but not every event arrived within the bound.
   * `unheard`: the events missing (e.g. `rpush`); `flags`: the classes they stand for (`K`
   * when none arrived at all: no keyspace channel is published, or nothing reaches us).
   */
  | { readonly kind: 'missed'; readonly unheard: readonly string[]; readonly flags: string }
  /** The round could not tell (the write failed or went unanswered, the subscriber is down). */
  | { readonly kind: 'inconclusive'; readonly reason: string };

export interface CanaryOptions {
  /** This canary's id, in every key of it ({@link randomCanaryId}, or one chosen for its slot). */
  readonly id: string;
  /**
   * The connection the canary writes on now (not the subscriber); may throw when there is none,
   * which makes the round inconclusive.
   */
  readonly writer: () => Redis;
  /** Key prefix `P`. */
  readonly prefix: string;
  /** How long a round waits for its events, barrier and write included (ms). */
  readonly timeoutMs: number;
  /** Watch a key's keyspace channel; `onEvent` gets the event name (`rpush`, `del`, …). */
  readonly watch: (key: string, onEvent: (event: string) => void) => KeyWatch;
  /**
   * Resolves once every message Redis published to the subscriber before this call has been
   * dispatched (a PING on the subscriber connection).
   */
  readonly barrier: () => Promise<unknown>;
}

type Listener = (key: string, event: string) => void;

/** A fresh canary id: 16 hex digits, so two servers on one Redis never hear each other's. */
export function randomCanaryId(): string {
  return randomUUID().replaceAll('-', '').slice(0, 16);
}

export class Canary {
  /** This canary's id (in every canary key). */
  readonly id: string;
  /** The canary keys, one per probe (`P:canary:{<id>}:l`, …). */
  readonly keys: readonly string[];
  private readonly watches: KeyWatch[];
  private listener: Listener | undefined;
  /** A write of an earlier round still unanswered: no new one is queued behind it. */
  private writing = false;

  constructor(private readonly options: CanaryOptions) {
    if ([...new Set(NEEDED_FLAGS)].some((flag) => !CANARY_FLAGS.includes(flag))) {
      throw new Error(`Canary: proves ${CANARY_FLAGS} but the feed needs ${NEEDED_FLAGS}`);
    }
    this.id = options.id;
    this.keys = PROBES.map((p) => canaryKey(options.prefix, this.id, p.suffix));
    this.watches = this.keys.map((key) =>
      options.watch(key, (event) => this.listener?.(key, event)),
    );
  }

  /**
   * One round: barrier, write, then wait for every expected event, all within `timeoutMs`.
   * Never rejects.
   */
  async round(): Promise<CanaryVerdict> {
    const { timeoutMs } = this.options;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const barrier = await Promise.race([settle(this.options.barrier()), expired]);
      if (barrier === 'timeout') {
        return inconclusive(`the subscriber connection did not answer PING within ${timeoutMs} ms`);
      }
      if (barrier !== 'ok') return inconclusive(`PING on the subscriber failed: ${barrier}`);
      if (this.writing) return inconclusive('the previous canary write is still unanswered');

      // From here on, every event of ours is one this round's write raised.
      const expected = new Map<string, Set<string>>(
        PROBES.map((p, i) => [this.keys[i] as string, new Set([p.event, GENERIC_EVENT])]),
      );
      let pending = PROBES.length * 2;
      let allHeard: () => void = () => {};
      const heard = new Promise<'heard'>((resolve) => {
        allHeard = () => resolve('heard');
      });
      this.listener = (key, event) => {
        if (expected.get(key)?.delete(event)) pending--;
        if (pending === 0) allHeard();
      };
      const written = await Promise.race([settle(this.write()), expired]);
      if (written === 'timeout') {
        return inconclusive(`the canary write was not answered within ${timeoutMs} ms`);
      }
      if (written !== 'ok') return inconclusive(`the canary write failed: ${written}`);
      if ((await Promise.race([heard, expired])) === 'heard') return { kind: 'heard' };

      const unheard = new Set<string>();
      let flags = '';
      PROBES.forEach((probe, i) => {
        const left = expected.get(this.keys[i] as string) as Set<string>;
        for (const event of left) unheard.add(event);
        if (left.has(probe.event)) flags += probe.flag;
        if (left.has(GENERIC_EVENT) && !flags.includes('g')) flags += 'g';
      });
      if (pending === PROBES.length * 2) flags = 'K';
      return { kind: 'missed', unheard: [...unheard], flags };
    } finally {
      clearTimeout(timer);
      this.listener = undefined;
    }
  }

  /** Stop watching the canary's channels. */
  dispose(): void {
    this.listener = undefined;
    for (const watch of this.watches) watch.release();
  }

  /**
   * Create every canary key and delete it again, atomically: each command raises its event, and
   * no key outlives the EXEC. (A MULTI, not a script: nothing is counted as EVALSHA, and Redis
   * refuses the whole transaction rather than part of it when it refuses a write.)
   */
  private async write(): Promise<void> {
    this.writing = true;
    try {
      const [l, h, s, z, t] = this.keys as [string, string, string, string, string];
      const replies = await this.options
        .writer()
        .multi()
        .rpush(l, '1')
        .hset(h, '1', '1')
        .sadd(s, '1')
        .zadd(z, 0, '1')
        .xadd(t, '*', '1', '1')
        .del(l, h, s, z, t)
        .exec();
      if (replies === null) throw new Error('the canary transaction was aborted');
      for (const [error] of replies) if (error) throw error;
    } finally {
      this.writing = false;
    }
  }
}

function inconclusive(reason: string): CanaryVerdict {
  return { kind: 'inconclusive', reason };
}

/** 'ok', or the error's message. */
function settle(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'ok',
    (error: unknown) => errorLine(error),
  );
}
