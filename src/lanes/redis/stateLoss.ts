/**
 * Noticing that Redis lost a queue's state (DESIGN.md §3, "A Redis that lost a queue's state"):
 * Redis restarted without its data, was flushed, or failed over to a replica that did not have
 * the queue's keys. Each {@link Connection} keeps one {@link StateWatch}: per queue it used, the
 * epoch it first saw (`checkEpoch-5.lua`) and the highest job id it has seen handed out. It asks
 * Redis again (one small script) when the queue is used after {@link STATE_CHECK_MS}, on every
 * reconnect of its client, and when asked ({@link StateWatch.checkAll}); an epoch that is not the
 * one it remembered is a loss, reported once, and `seq` is raised to the highest id seen so no
 * id this process handed out is minted again.
 */
import { randomBytes } from 'node:crypto';
import type { EpochReply } from '../scripts/commands.js';
import { isCluster, type RedisClient } from './client.js';

/** A queue is checked again when used at least this long (ms) after its last check. */
export const STATE_CHECK_MS = 1_000;

/** What the last check before a loss found in the queue (counts as stored then). */
export interface StateSeen {
  /** When that check was answered (ms since the epoch, this process' clock). */
  readonly at: number;
  readonly pending: number;
  readonly delayed: number;
  readonly active: number;
  /** Groups with a limit. */
  readonly limits: number;
  /** Paused groups. */
  readonly paused: number;
}

/** One queue's lost state, as reported to `RingmasterOptions.onStateLost`. */
export interface StateLoss {
  readonly queue: string;
  /** The epoch this process remembered, and the one Redis holds now (written anew, mostly). */
  readonly epochBefore: string;
  readonly epochNow: string;
  /**
   * `RESTARTED`: Redis' `run_id` changed (it restarted, or a failover put another server there)
   * and it came back without the queue's keys; `DELETED`: the same Redis run, the keys deleted
   * (FLUSHALL, FLUSHDB, by hand); `UNKNOWN`: on a Redis Cluster, or when INFO could not be read.
   */
  readonly cause: 'RESTARTED' | 'DELETED' | 'UNKNOWN';
  /** What the check before found, or null when no check had read it yet. */
  readonly lastSeen: StateSeen | null;
  /** The highest job id this process had seen handed out (0: none); new ids are above it. */
  readonly highestId: number;
  /** The one log line: the queue, the cause, what was lost and what happens to ids. */
  readonly message: string;
}

/** How a queue is asked: its `checkEpoch` script. */
export interface StateProbe {
  readonly queue: string;
  readonly check: (p: { known: string | null; fresh: string }) => Promise<EpochReply>;
}

interface Entry {
  probe: StateProbe;
  epoch: string | null;
  highestId: number;
  seen: StateSeen | null;
  checkedAt: number;
  running: Promise<void> | null;
  again: boolean;
}

/** Every StateWatch of a client, so one 'ready' listener serves them all (weakly held). */
const WATCHES = new WeakMap<RedisClient, Set<WeakRef<StateWatch>>>();

export class StateWatch {
  /** Queue base (`P:{Q}:`) → what this connection knows of it. */
  private readonly entries = new Map<string, Entry>();
  /** Redis' `run_id` as last read while nothing was lost (a single Redis only). */
  private runId: string | null = null;
  private listening = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly onLost: ((loss: StateLoss) => void) | undefined,
  ) {}

  /**
   * The queue at `base` is being used: remembered (first use: checked now), and checked again
   * when its last check is {@link STATE_CHECK_MS} old. Never waits, never throws.
   */
  touch(base: string, probe: () => StateProbe): void {
    let entry = this.entries.get(base);
    if (entry === undefined) {
      entry = {
        probe: probe(),
        epoch: null,
        highestId: 0,
        seen: null,
        checkedAt: 0,
        running: null,
        again: false,
      };
      this.entries.set(base, entry);
      this.listen();
    }
    if (Date.now() - entry.checkedAt >= STATE_CHECK_MS) void this.check(entry);
  }

  /** The highest job id seen handed out in the queue at `base`, or null for none. */
  idFloor(base: string): number | null {
    const highest = this.entries.get(base)?.highestId ?? 0;
    return highest > 0 ? highest : null;
  }

  /** Job ids handed out in the queue at `base` (decimal text), raising its floor. */
  noteIds(base: string, ids: readonly string[]): void {
    const entry = this.entries.get(base);
    if (entry === undefined) return;
    for (const id of ids) {
      const n = Number(id);
      if (Number.isSafeInteger(n) && n > entry.highestId) entry.highestId = n;
    }
  }

  /** Check every queue this connection used, now. Resolves once each check is answered. */
  async checkAll(): Promise<void> {
    await Promise.all([...this.entries.values()].map((entry) => this.check(entry)));
  }

  private check(entry: Entry): Promise<void> {
    if (entry.running !== null) {
      // One check per queue on the wire; one more after it for what asked meanwhile.
      entry.again = true;
      return entry.running;
    }
    entry.checkedAt = Date.now();
    const run = this.ask(entry)
      .catch(() => {
        // Redis unreachable or refusing: the next use, reconnect or sweep asks again.
        entry.checkedAt = 0;
      })
      .finally(() => {
        entry.running = null;
        if (entry.again) {
          entry.again = false;
          void this.check(entry);
        }
      });
    entry.running = run;
    return run;
  }

  private async ask(entry: Entry): Promise<void> {
    const known = entry.epoch;
    // The check goes out first, in the same turn as the call that touched the queue, so it
    // lands right behind that call's write; the run_id of the first check rides beside it.
    const [reply] = await Promise.all([
      entry.probe.check({
        known,
        fresh: randomBytes(8).toString('hex'),
      }),
      this.runId === null
        ? this.readRunId().then((id) => {
            this.runId ??= id;
          })
        : null,
    ]);
    const [epoch, lost, seq, pending, delayed, active, limits, paused] = reply;
    const before = entry.seen;
    entry.epoch = epoch;
    const counter = Number(seq ?? 0);
    if (Number.isSafeInteger(counter) && counter > entry.highestId) entry.highestId = counter;
    entry.seen = {
      at: Date.now(),
      pending: Number(pending ?? 0),
      delayed: Number(delayed ?? 0),
      active: Number(active ?? 0),
      limits: Number(limits),
      paused: Number(paused),
    };
    if (lost !== 1 || known === null) return;
    const runId = await this.readRunId();
    const cause =
      runId === null || this.runId === null
        ? 'UNKNOWN'
        : runId !== this.runId
          ? 'RESTARTED'
          : 'DELETED';
    // The new run_id is kept once every queue of this round is checked (afterReconnect), so
    // each of them is judged against the one before.
    const loss: StateLoss = {
      queue: entry.probe.queue,
      epochBefore: known,
      epochNow: epoch,
      cause,
      lastSeen: before,
      highestId: entry.highestId,
      message: lossLine(entry.probe.queue, cause, before, entry.highestId),
    };
    try {
      this.onLost?.(loss);
    } catch {
      // The report's failure is not the check's.
    }
  }

  /** `run_id` from INFO server on a single Redis; null on a cluster or when it cannot be read. */
  private async readRunId(): Promise<string | null> {
    if (isCluster(this.redis)) return null;
    try {
      const info = await this.redis.info('server');
      return /^run_id:(\S+)/m.exec(info)?.[1] ?? null;
    } catch {
      return null;
    }
  }

  /** One 'ready' listener per client: every reconnect checks each queue of each watch. */
  private listen(): void {
    if (this.listening) return;
    this.listening = true;
    let watches = WATCHES.get(this.redis);
    if (watches === undefined) {
      const set = new Set<WeakRef<StateWatch>>();
      watches = set;
      WATCHES.set(this.redis, set);
      this.redis.on('ready', () => {
        for (const ref of set) {
          const watch = ref.deref();
          if (watch === undefined) set.delete(ref);
          else void watch.afterReconnect();
        }
      });
    }
    watches.add(new WeakRef(this));
  }

  /** After a reconnect: check every queue, then take the run_id as current. */
  private async afterReconnect(): Promise<void> {
    await this.checkAll();
    this.runId = await this.readRunId();
  }
}

/** The one line a loss is reported in. */
function lossLine(
  queue: string,
  cause: StateLoss['cause'],
  seen: StateSeen | null,
  highestId: number,
): string {
  const how =
    cause === 'RESTARTED'
      ? 'Redis restarted or failed over (its run_id changed) and came back without the queue'
      : cause === 'DELETED'
        ? "the queue's keys were deleted while Redis ran (FLUSHALL, FLUSHDB or by hand)"
        : 'Redis no longer holds the queue (restarted without its data, flushed or failed over)';
  const had =
    seen === null
      ? ''
      : `; ${Math.max(0, Math.round((Date.now() - seen.at) / 1000))} s before it held ` +
        `${seen.pending} pending, ${seen.delayed} delayed and ${seen.active} active jobs, ` +
        `${seen.limits} group limits and ${seen.paused} paused groups`;
  const ids =
    highestId > 0 ? `; new job ids continue after ${highestId}, the highest this process saw` : '';
  return (
    `queue ${queue} lost its state in Redis: ${how}${had}; those jobs, limits, pauses, rate ` +
    `limits, weights, timed overrides, counters and the steering history are gone${ids}`
  );
}
