/**
 * A watched ring kept by its changes (DESIGN.md §4.4, "The ring log"): the feed holds a copy of
 * `P:{Q}:ring` and applies the entries the scripts append to `P:{Q}:ringlog` while the ring is
 * watched, so a change costs the server O(what changed), not a read of the whole ring. It reads
 * the whole ring (a SNAPSHOT or RESYNC read) at the start, when told to (a reconnect, a slot
 * that moved, the canary), when the marker `P:{Q}:ringwatched` was found gone at a renewal, and
 * whenever the log shows a gap (an entry's seq not the last one's plus one, the log trimmed or
 * expired past what was read).
 */
import {
  type QueueKeys,
  type QueueState,
  type RedisClient,
  rotaEntries,
} from '../lanes/internal.js';

/** How long the marker `P:{Q}:ringwatched` lasts without a renewal (ms); renewed every third. */
export const RING_WATCH_TTL_MS = 30_000;
/** Log entries read per round trip while catching up (the log keeps 1,024). */
const LOG_PAGE = 64;
/** The log's bound (`RING_LOG_KEPT` in includes/ringLog.lua). */
const LOG_KEPT = 1024;

interface Node {
  readonly group: string;
  prev: Node | undefined;
  next: Node | undefined;
}

/**
 * The ring as a linked list with a group → node index: push and unshift O(1), pop O(n popped),
 * remove O(1) (a group is on the ring once by I1; a ring another writer damaged may hold it more
 * than once, and LREM removes every one, so the index keeps them all).
 */
export class RingList {
  private head: Node | undefined;
  private tail: Node | undefined;
  private readonly index = new Map<string, Node | Node[]>();
  private count = 0;

  constructor(groups: readonly string[] = []) {
    for (const group of groups) this.push(group);
  }

  get size(): number {
    return this.count;
  }

  has(group: string): boolean {
    return this.index.has(group);
  }

  push(group: string): void {
    const node: Node = { group, prev: this.tail, next: undefined };
    if (this.tail) this.tail.next = node;
    else this.head = node;
    this.tail = node;
    this.link(node);
  }

  unshift(group: string): void {
    const node: Node = { group, prev: undefined, next: this.head };
    if (this.head) this.head.prev = node;
    else this.tail = node;
    this.head = node;
    this.link(node);
  }

  /** Take the head; undefined when empty. */
  shift(): string | undefined {
    const node = this.head;
    if (node === undefined) return undefined;
    this.unlinkNode(node);
    return node.group;
  }

  /** Remove every occurrence of `group`; how many there were. */
  remove(group: string): number {
    const entry = this.index.get(group);
    if (entry === undefined) return 0;
    const nodes = Array.isArray(entry) ? [...entry] : [entry];
    for (const node of nodes) this.unlinkNode(node);
    return nodes.length;
  }

  /** The first `n` groups, head first (all with Infinity). */
  slice(n: number): string[] {
    const out: string[] = [];
    for (let node = this.head; node !== undefined && out.length < n; node = node.next) {
      out.push(node.group);
    }
    return out;
  }

  private link(node: Node): void {
    this.count++;
    const entry = this.index.get(node.group);
    if (entry === undefined) this.index.set(node.group, node);
    else if (Array.isArray(entry)) entry.push(node);
    else this.index.set(node.group, [entry, node]);
  }

  private unlinkNode(node: Node): void {
    if (node.prev) node.prev.next = node.next;
    else this.head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.tail = node.prev;
    node.prev = undefined;
    node.next = undefined;
    this.count--;
    const entry = this.index.get(node.group);
    if (Array.isArray(entry)) {
      const rest = entry.filter((n) => n !== node);
      this.index.set(node.group, rest.length === 1 ? (rest[0] as Node) : rest);
    } else {
      this.index.delete(node.group);
    }
  }
}

/** The groups that joined and left the ring in one step, in the order they did. */
export interface RingStep {
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

/**
 * Steps that a version keeps the link to its successor for: a subscriber that falls further
 * behind than this many changes is sent a RESYNC against nothing (DESIGN.md §4.4).
 */
export const RING_VERSIONS_KEPT = 10_000;

/**
 * One state of a watched ring: its size, the queue's state, the step from the version before,
 * and the head of the ring as far as some subscriber asked for it. The ring itself is read
 * from the watch's list only while this is the watch's latest version ({@link prefix}); a
 * subscriber's event is rendered at that moment (a stream renders the latest value offered to
 * it), and keeps what it needs.
 */
export class RingVersion {
  /** The next version, until this one is more than {@link RING_VERSIONS_KEPT} behind. */
  next: RingVersion | undefined;
  /** The first version read after the engine found the queue's state lost: sent as a RESYNC. */
  stateLost = false;
  private head: string[] = [];
  private headComplete = false;

  constructor(
    readonly number: number,
    readonly queueState: QueueState,
    readonly size: number,
    readonly step: RingStep,
    private list: RingList | undefined,
  ) {}

  /** Whether the watch's list still is this version. */
  get current(): boolean {
    return this.list !== undefined;
  }

  /**
   * Take the first `n` groups now, while the list still is this version (it is about to
   * change), so a subscriber that renders this version before it is offered the next one gets
   * its head.
   */
  freeze(n: number): void {
    if (n > 0) this.prefix(n);
  }

  /** The list moved on: what was taken of it is what is left. */
  superseded(): void {
    this.list = undefined;
  }

  /** Two versions on, no render can ask for it: a version kept for its step holds no ring. */
  dropHead(): void {
    this.head = [];
    this.headComplete = true;
  }

  /**
   * The first `n` groups of the ring (Infinity: all), head first; taken from the list while
   * this version is current and kept, so later asks of n or fewer are a slice of what was taken.
   * A superseded version gives what was taken of it (frozen before the list changed).
   */
  prefix(n: number): string[] {
    if (n <= this.head.length || this.headComplete) return this.head.slice(0, n);
    if (this.list !== undefined) {
      this.head = this.list.slice(n);
      this.headComplete = this.head.length === this.list.size;
    }
    return this.head.slice(0, n);
  }
}

/**
 * Net joins and leaves from version `from` (exclusive) to `to` (inclusive), in the order they
 * happened; null when the chain between them was cut ({@link RING_VERSIONS_KEPT}).
 */
export function stepsBetween(from: RingVersion, to: RingVersion): RingStep | null {
  if (from === to) return { added: [], removed: [] };
  // group → was it on the ring at `from`; and whether it is at `to`
  const before = new Map<string, boolean>();
  const after = new Map<string, boolean>();
  let v: RingVersion | undefined = from;
  while (v !== to) {
    v = v.next;
    if (v === undefined || v.number > to.number) return null;
    for (const group of v.step.removed) {
      if (!before.has(group)) before.set(group, true);
      after.set(group, false);
    }
    for (const group of v.step.added) {
      if (!before.has(group)) before.set(group, false);
      after.set(group, true);
    }
  }
  const added: string[] = [];
  const removed: string[] = [];
  for (const [group, was] of before) {
    const is = after.get(group) === true;
    if (!was && is) added.push(group);
    else if (was && !is) removed.push(group);
  }
  return { added, removed };
}

/** Whether `list` holds `groups`, in that order. */
function sameOrder(list: RingList, groups: readonly string[]): boolean {
  if (list.size !== groups.length) return false;
  const held = list.slice(groups.length);
  return held.every((group, i) => group === groups[i]);
}

/**
 * Whether a batch with no join or leave left the ring as it was, judged in O(batch): pops take
 * from the head, unshifts put back at the head, pushes at the tail. With as many put back at the
 * head as popped (nothing pushed), the ring is as it was when its head is; otherwise every group
 * past the popped ones moved, which changes a ring longer than the pops (its groups are
 * distinct, I1), and a ring no longer than them is compared whole (`headBefore` holds it).
 */
function unchanged(
  list: RingList,
  sizeBefore: number,
  headBefore: readonly string[],
  entries: readonly LogEntry[],
): boolean {
  let unshifted = 0;
  for (const entry of entries) {
    if (entry.o === 'rem') return false;
    if (entry.o === 'unshift' && Array.isArray(entry.g)) unshifted += entry.g.length;
  }
  if (list.size !== sizeBefore) return false;
  if (unshifted !== headBefore.length && sizeBefore > headBefore.length) return false;
  const head = list.slice(headBefore.length);
  return head.every((group, i) => group === headBefore[i]);
}

/** One entry of `P:{Q}:ringlog` (includes/ringLog.lua). */
interface LogEntry {
  seq: string;
  o: 'push' | 'unshift' | 'pop' | 'rem' | 'levels';
  g?: string[] | string;
  n?: number;
}

/**
 * Whether the copy can apply `entry` itself: not a change of `levels` (the rota is read
 * whole), nor an op or shape it does not know.
 */
function applicable(entry: LogEntry): boolean {
  switch (entry.o) {
    case 'push':
    case 'unshift':
    case 'pop':
      return true;
    case 'rem':
      return typeof entry.g === 'string';
    default:
      return false;
  }
}

/** Counts for `LiveFeed.stats`. */
export interface RingMirrorCounts {
  /** Whole-ring reads (LRANGE). */
  fullReads: number;
  /** Log reads (LRANGE of the log's tail). */
  logReads: number;
}

/**
 * The copy of one queue's ring and the reads that keep it: {@link read} answers the latest
 * version, reading the log since the last entry applied (or the whole ring when it must).
 */
export class RingMirror {
  private list: RingList | undefined;
  /** The seq of the last log entry applied; null when the whole read found no log. */
  private lastSeq: bigint | null = null;
  private marked = false;
  private latest: RingVersion | undefined;
  private number = 0;
  private needFull = true;
  /**
   * Whether the last whole read found groups of other levels than the ring's (`levels`,
   * DESIGN.md §3 "Levels"): the log's entries say what the ring did, not where it stands among
   * them, so while there are any every change is read whole (O(rota)).
   */
  private leveled = false;
  /**
   * What each subscriber needs of the ring's head (groups; Infinity: all). Before the copy
   * changes, the version it was keeps that much, for a subscriber that renders it in the moment
   * before the next version is offered to it.
   */
  readonly needs = new Map<object, number>();
  /** The version before the latest: it drops its head when the next one comes. */
  private beforeLatest: RingVersion | undefined;
  /** The last versions, oldest first, for cutting the chain behind them. */
  private readonly kept: RingVersion[] = [];
  private keptFrom = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: QueueKeys,
    private readonly counts: RingMirrorCounts,
    private readonly ttlMs: number = RING_WATCH_TTL_MS,
  ) {}

  /**
   * The next read sets the marker again and reads the whole ring (a reconnect: a Redis that
   * restarted has lost the marker; a moved slot; notifications that stopped).
   */
  invalidate(): void {
    this.needFull = true;
    this.marked = false;
  }

  /**
   * Set (or renew) the marker that makes the scripts log the ring's changes; a marker found
   * gone (it lapsed, or Redis lost it) means changes went unlogged: the next read is whole, and
   * this answers true (the caller has the ring read again).
   */
  async mark(): Promise<boolean> {
    const ttlMs = Math.ceil(this.ttlMs);
    const [[error, previous] = [null, null]] =
      (await this.redis
        .multi()
        .set(this.keys.ringWatched, '1', 'PX', ttlMs, 'GET')
        .pexpire(this.keys.ringLog, ttlMs * 2)
        .exec()) ?? [];
    if (error) throw error;
    const lapsed = previous === null && this.marked && !this.needFull;
    if (previous === null) this.needFull = true;
    this.marked = true;
    return lapsed;
  }

  /**
   * Read what changed (or the whole ring) and answer the latest version. `fresh`: read the
   * ring whole and answer a new version even when nothing changed (a version already sent is
   * never changed afterwards; a lost state is told on a version of its own).
   */
  async read(fresh = false): Promise<RingVersion> {
    if (!this.marked) await this.mark();
    const list = this.list;
    const latest = this.latest;
    if (fresh || this.needFull || list === undefined || latest === undefined) {
      return this.readFull(fresh);
    }
    const entries: LogEntry[] = [];
    const queueState = await this.readLog(entries);
    if (queueState === null || this.needFull) return this.readFull();
    // Decided before any entry is applied: a whole read compares what it finds with the copy,
    // and a copy changed halfway that happens to equal the ring would hide the change from the
    // version last sent.
    if ((this.leveled && entries.length > 0) || !entries.every(applicable)) {
      return this.readFull();
    }
    if (entries.length === 0 && queueState === latest.queueState) return latest;
    latest.freeze(this.need());
    // What the head was, for telling a batch that left the ring as it was (below).
    const popped = entries.reduce((n, e) => n + (e.o === 'pop' ? (e.n ?? 0) : 0), 0);
    const headBefore = list.slice(popped);
    const sizeBefore = list.size;
    const before = new Map<string, boolean>();
    const touch = (group: string) => {
      if (!before.has(group)) before.set(group, list.has(group));
    };
    for (const entry of entries) {
      const groups = Array.isArray(entry.g) ? entry.g : [];
      switch (entry.o) {
        case 'push':
          for (const group of groups) {
            touch(group);
            list.push(group);
          }
          break;
        case 'unshift':
          for (let i = groups.length - 1; i >= 0; i--) {
            const group = groups[i] as string;
            touch(group);
            list.unshift(group);
          }
          break;
        case 'pop':
          for (let i = 0; i < (entry.n ?? 0); i++) {
            const head = list.shift();
            // The log pops more than the copy holds: the copy was wrong before this read.
            if (head === undefined) return this.readFull(true, true);
            if (!before.has(head)) before.set(head, true);
          }
          break;
        case 'rem':
          touch(entry.g as string);
          list.remove(entry.g as string);
          break;
      }
    }
    const lastEntry = entries[entries.length - 1];
    if (lastEntry !== undefined) this.lastSeq = BigInt(lastEntry.seq);
    const added: string[] = [];
    const removed: string[] = [];
    for (const [group, was] of before) {
      const is = list.has(group);
      if (!was && is) added.push(group);
      else if (was && !is) removed.push(group);
    }
    if (
      queueState === latest.queueState &&
      added.length === 0 &&
      removed.length === 0 &&
      unchanged(list, sizeBefore, headBefore, entries)
    ) {
      return latest;
    }
    return this.advance(queueState, { added, removed }, list);
  }

  /**
   * The log's entries after the last applied, into `entries`; the queue's state, or null when
   * the log has a gap (the next read must be whole). After a whole read that found no log,
   * the log's first entry follows it: every entry was written after that read.
   */
  private async readLog(entries: LogEntry[]): Promise<QueueState | null> {
    const last = this.lastSeq;
    let page = LOG_PAGE;
    for (;;) {
      this.counts.logReads++;
      const [[e1, raw] = [null, []], [e2, paused] = [null, null]] =
        (await this.redis
          .multi()
          .lrange(this.keys.ringLog, -page, -1)
          .hget(this.keys.settings, 'paused')
          .exec()) ?? [];
      if (e1) throw e1;
      if (e2) throw e2;
      const queueState: QueueState = paused === '1' ? 'PAUSED' : 'RUNNING';
      const lines = raw as string[];
      const whole = lines.length < page;
      const parsed: LogEntry[] = [];
      for (const line of lines) {
        try {
          const entry = JSON.parse(line) as LogEntry;
          BigInt(entry.seq);
          parsed.push(entry);
        } catch {
          return null;
        }
      }
      // A log that is gone while it was being applied was lost with the marker (its TTL is
      // renewed while the ring is watched): what changed since is unknown.
      if (last !== null && parsed.length === 0) return null;
      const newer = last === null ? parsed : parsed.filter((e) => BigInt(e.seq) > last);
      const first = newer[0];
      if (first === undefined) {
        // Nothing new, unless the log restarted below what was read (expired and made again).
        const top = parsed[parsed.length - 1];
        if (top !== undefined && last !== null && BigInt(top.seq) < last) return null;
        return queueState;
      }
      const follows = last === null ? whole : BigInt(first.seq) === last + 1n;
      if (follows) {
        for (let i = 1; i < newer.length; i++) {
          if (BigInt((newer[i] as LogEntry).seq) !== BigInt((newer[i - 1] as LogEntry).seq) + 1n) {
            return null;
          }
        }
        entries.push(...newer);
        return queueState;
      }
      // The page starts after the next entry: read further back, unless it was trimmed.
      if (newer.length < parsed.length || whole || page >= LOG_KEPT) return null;
      page = Math.min(page * 4, LOG_KEPT);
    }
  }

  /**
   * `fresh`: a new version even when nothing changed. `damaged`: the copy is known to differ
   * from the versions sent, so the new version is not linked to them: whoever was sent one of
   * them is sent the ring whole, a RESYNC (ringWatch.ts, stepsBetween).
   */
  private async readFull(fresh = false, damaged = false): Promise<RingVersion> {
    this.needFull = false;
    this.counts.fullReads++;
    const [
      [e1, ring] = [null, []],
      [e2, last] = [null, null],
      [e3, paused] = [null, null],
      [e4, levels] = [null, []],
    ] =
      (await this.redis
        .multi()
        .lrange(this.keys.ring, 0, -1)
        .lindex(this.keys.ringLog, -1)
        .hget(this.keys.settings, 'paused')
        .zrange(this.keys.levels, 0, -1, 'WITHSCORES')
        .exec()) ?? [];
    const error = e1 ?? e2 ?? e3 ?? e4;
    if (error) {
      this.needFull = true;
      throw error;
    }
    let seq: bigint | null = null;
    if (typeof last === 'string') {
      try {
        seq = BigInt((JSON.parse(last) as LogEntry).seq);
      } catch {
        // Not an entry of ours: the next entry cannot follow it, and a whole read comes next.
        seq = -1n;
      }
    }
    // The rota in claim order: levels 1–4, the ring, levels 6–9 (DESIGN.md §3, "Levels").
    const scored = levels as string[];
    this.leveled = scored.length > 0;
    const groups = this.leveled
      ? rotaEntries(scored, ring as string[]).map((entry) => entry.group)
      : (ring as string[]);
    const previous = this.list;
    this.latest?.freeze(this.need());
    const queueState: QueueState = paused === '1' ? 'PAUSED' : 'RUNNING';
    this.lastSeq = seq;
    const latest = this.latest;
    if (
      !fresh &&
      previous !== undefined &&
      latest !== undefined &&
      latest.queueState === queueState &&
      sameOrder(previous, groups)
    ) {
      return latest;
    }
    const list = new RingList(groups);
    const added: string[] = [];
    const removed: string[] = [];
    if (previous !== undefined) {
      const seen = new Set<string>();
      for (const group of groups) {
        if (!previous.has(group) && !seen.has(group)) added.push(group);
        seen.add(group);
      }
      for (const group of previous.slice(Number.POSITIVE_INFINITY)) {
        if (!list.has(group) && !seen.has(group)) removed.push(group);
        seen.add(group);
      }
    }
    this.list = list;
    return this.advance(queueState, { added, removed }, list, damaged);
  }

  /** The most any subscriber needs of the ring's head (0 when none watches). */
  private need(): number {
    let most = 0;
    for (const n of this.needs.values()) if (n > most) most = n;
    return most;
  }

  private advance(
    queueState: QueueState,
    step: RingStep,
    list: RingList,
    unlinked = false,
  ): RingVersion {
    const version = new RingVersion(++this.number, queueState, list.size, step, list);
    const previous = this.latest;
    if (previous !== undefined) {
      previous.superseded();
      if (!unlinked) previous.next = version;
    }
    this.beforeLatest?.dropHead();
    this.beforeLatest = previous;
    this.latest = version;
    this.kept.push(version);
    if (this.kept.length - this.keptFrom > RING_VERSIONS_KEPT) {
      const dropped = this.kept[this.keptFrom] as RingVersion;
      dropped.next = undefined;
      this.keptFrom++;
      if (this.keptFrom > RING_VERSIONS_KEPT) {
        this.kept.splice(0, this.keptFrom);
        this.keptFrom = 0;
      }
    }
    return version;
  }
}
