/**
 * Group steering (admin): thin calls into the engine (DESIGN.md §4 `Mutation`). And "why does
 * this group get no more turns?": `Group.blockedBy` and `Group.reason` (worded for operators),
 * plain functions of the group's state (and, for a group on the ring, its place there). The
 * console shows the sentence; programs switch on the enum.
 */

import type { Context } from '../context.js';
import type { GroupInfo, RotaEntry } from '../lanes/index.js';
import { atCap, groupBlocks, groupState } from '../lanes/queue/state.js';
import { steered } from './known.js';
import { withOverrides } from './overrides.js';
import { oncePerExecution } from './perExecution.js';
import { capOf, capSentence } from './queueCap.js';
import { rateLimitedSentence, rateText, reopenedSentence, reopensAt } from './rateLimit.js';
import { steering } from './steering.js';

interface GroupArgs {
  queue: string;
  group: string;
}

export const setLimit = (
  ctx: Context,
  a: GroupArgs & { limit: number; forMs?: number | null | undefined },
): Promise<GroupInfo> =>
  steered(ctx, a, (q) => q.setLimit(a.group, a.limit, { ...steering(ctx), forMs: a.forMs }));

export const clearLimit = (ctx: Context, a: GroupArgs): Promise<GroupInfo> =>
  steered(ctx, a, (q) => q.clearLimit(a.group, steering(ctx)));

export const pauseGroup = (
  ctx: Context,
  a: GroupArgs & { forMs?: number | null | undefined },
): Promise<GroupInfo> =>
  steered(ctx, a, (q) => q.pause(a.group, { ...steering(ctx), forMs: a.forMs }));

export const resumeGroup = (
  ctx: Context,
  a: GroupArgs & { forMs?: number | null | undefined },
): Promise<GroupInfo> =>
  steered(ctx, a, (q) => q.resume(a.group, { ...steering(ctx), forMs: a.forMs }));

/**
 * A group's place on the ring: 1-based `position` (null when not on it) of `length`, and
 * whether the whole queue is paused (pauseQueue: the ring stands, nothing is claimed).
 */
export interface RingPosition {
  readonly position: number | null;
  readonly length: number;
  readonly queuePaused: boolean;
  /** Places known from the head (a snapshot's `ringFirst`); the whole ring when absent. */
  readonly known?: number | undefined;
  /** Its level, and the most urgent level on the rota, when a more urgent one holds it back. */
  readonly heldBack?: HeldBack | null | undefined;
}

/** A group on the rota whose level waits behind a more urgent one (DESIGN.md §3, "Levels"). */
export interface HeldBack {
  readonly level: number;
  readonly first: number;
}

/**
 * What keeps a group from its turn: off the ring ({@link OwnBlocker}); on it, QUEUE_LIMIT while
 * the queue is at or over its cap (DESIGN.md §3, "The queue's cap and reserves"), else LEVEL
 * behind a more urgent level (§3, "Levels"); null when it is on it and nothing holds it back,
 * or serviceable and waiting for the next claim to put it back after its rate window reopened
 * (`rateReopenedAt`). The order is DESIGN.md §4.2's.
 */
export type BlockedBy = OwnBlocker | 'QUEUE_LIMIT' | 'LEVEL';

/** What of a group's own state keeps it off the ring (the rota's levels aside). */
export type OwnBlocker = 'PAUSED' | 'PARKED' | 'LIMIT' | 'IDLE' | 'RATE_LIMITED';

/**
 * `GroupState` (its precedence is `groupState`'s, in `src/lanes/queue/state.ts`) with SATURATED told
 * apart: PARKED when the limit is 0 or below the work in flight (lowered under it), LIMIT when
 * exactly reached. Null when the group is serviceable (READY, invariant I1).
 */
export function blockedBy(g: GroupInfo): OwnBlocker | null {
  switch (groupState(g)) {
    case 'PAUSED':
      return 'PAUSED';
    case 'SATURATED':
      return g.limit === 0 || g.active > (g.limit ?? 0) ? 'PARKED' : 'LIMIT';
    case 'IDLE':
      return 'IDLE';
    case 'RATE_LIMITED':
      return 'RATE_LIMITED';
    case 'READY':
      return null;
  }
}

const inFlight = (n: number): string => `${n} in flight`;

/** One thing keeping a group off the ring, for people: what it is, and what lifts it. */
interface Blocker {
  readonly what: string;
  readonly liftsWhen: string;
}

/**
 * Every blocker that applies to `g` ({@link groupBlocks}: paused, limit, rate, in
 * `groupState`'s order).
 * `blockedBy` names only the first (one enum value, DESIGN.md §4); the others still hold once it
 * lifts — a group at its limit and its rate is RATE_LIMITED after the completion — so
 * `reason` names each of them.
 */
function blockers(g: GroupInfo): Blocker[] {
  return groupBlocks(g).map((block): Blocker => {
    if (block === 'PAUSED') return { what: 'paused', liftsWhen: 'it is resumed' };
    if (block === 'RATE_LIMITED') {
      return {
        what: `rate-limited until ${reopensAt(g)} (${rateText(g)})`,
        liftsWhen: 'its next token comes',
      };
    }
    const limit = g.limit ?? 0;
    if (limit === 0) return { what: 'parked (the limit is 0)', liftsWhen: 'the limit is raised' };
    if (g.active > limit) {
      return {
        what: `parked (limit ${limit}, lowered below the work in flight)`,
        liftsWhen: `${g.active - limit + 1} finish`,
      };
    }
    return { what: `at its limit (${g.active} of ${limit} in flight)`, liftsWhen: 'one finishes' };
  });
}

/** "a", "a and b", "a, b and c". */
function listed(parts: readonly string[]): string {
  return parts.length < 2
    ? parts.join('')
    : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/**
 * The sentence for a group held by more than one blocker: each named, and what must happen for
 * each to lift ("at its limit (1 of 1 in flight) and rate-limited until … (1 token per 1 h,
 * burst 1): it gets no turns until one finishes and its next token comes (1 pending, 1 in
 * flight)").
 */
function severalBlockers(g: GroupInfo, all: readonly Blocker[]): string {
  return `${listed(all.map((b) => b.what))}: it gets no turns until ${listed(
    all.map((b) => b.liftsWhen),
  )} (${g.pending} pending, ${inFlight(g.active)})`;
}

/**
 * One plain sentence saying why `g` runs or not. `ring` is where it stands on the ring, and is
 * only read for a group that is not blocked (it costs O(ring)).
 */
function reasonSentence(
  g: GroupInfo,
  ring: RingPosition | null,
  bound: number | null = g.maxPending,
): string {
  const all = blockers(g);
  if (all.length > 1) return severalBlockers(g, all);
  const blocked = blockedBy(g);
  switch (blocked) {
    case 'PAUSED':
      return `paused: it gets no turns until resumed (${g.pending} pending, ${inFlight(g.active)})`;
    case 'PARKED':
      if (g.limit === 0) {
        return g.active > 0
          ? `parked: the limit is 0, so it gets no turns until the limit is raised (${inFlight(g.active)})`
          : 'parked: the limit is 0, so it gets no turns until the limit is raised';
      }
      return `parked: the limit was lowered below the work in flight, ${
        g.active - (g.limit ?? 0) + 1
      } must finish first (${inFlight(g.active)}, limit ${g.limit})`;
    case 'LIMIT':
      return g.pending > 0
        ? `at its limit (${g.active} of ${g.limit} in flight): it re-joins the ring when one finishes`
        : `at its limit (${g.active} of ${g.limit} in flight), with no backlog`;
    case 'RATE_LIMITED':
      return rateLimitedSentence(g);
    case 'IDLE': {
      // Not "idle": a group with jobs in flight is busy, it only has nothing more waiting.
      // A backlog bound of 0 refuses every enqueue (GROUP_FULL), so no job can give it a turn.
      const next =
        bound === 0
          ? 'its backlog bound is 0, so every enqueue is refused until the bound is raised'
          : 'it gets a turn when a job is enqueued';
      return g.active > 0
        ? `busy, no backlog: nothing is waiting (${inFlight(g.active)}); ${next}`
        : `empty: nothing is waiting or in flight; ${next}`;
    }
    case null: {
      if (g.rateReopenedAt !== null) return reopenedSentence(g);
      if (
        ring !== null &&
        ring.position === null &&
        ring.known !== undefined &&
        ring.known < ring.length
      ) {
        // Serviceable, past the head the snapshot read (ringFirst): on the ring further on.
        return `on the ring after position ${ring.known} of ${ring.length}`;
      }
      if (ring === null || ring.position === null) {
        // Serviceable by I1 but not found on the ring: it changed between the two reads (a
        // claim emptied it, say), or another writer left the ring damaged (Queue.audit).
        return 'ready to run, but not on the ring at this moment (its state changed while it was read)';
      }
      const place = `on the ring at position ${ring.position} of ${ring.length}`;
      if (ring.heldBack) return `${place}${levelClause(ring.heldBack)}`;
      if (ring.queuePaused) {
        return `${place}, but the queue is paused: nothing is claimed until it is resumed`;
      }
      return ring.position === 1 ? `${place}: next to be served` : place;
    }
  }
}

/** A group on the rota behind a more urgent level (DESIGN.md §3, "Levels"), as its reason says it. */
function levelClause({ level, first }: HeldBack): string {
  return `, at priority level ${level}: a more urgent level (${first}) is served first while it has a group ready`;
}

interface RingIndex {
  readonly length: number;
  /** Places known from the head (a snapshot's `ringFirst`); the whole ring when absent. */
  readonly known?: number;
  readonly position: ReadonlyMap<string, number>;
  readonly queuePaused: boolean;
  /** Each group's level on the rota (none read: a snapshot's ring, whose levels it has not). */
  readonly level: ReadonlyMap<string, number>;
  /** The most urgent level on the rota (its head's), null when empty or not read. */
  readonly firstLevel: number | null;
}

/**
 * Whether the queue is paused (`pauseQueue`), read once per queue per execution
 * ({@link oncePerExecution}): O(1), one HGET.
 */
function queuePausedOf(ctx: Context, rootValue: unknown, queueName: string): Promise<boolean> {
  return oncePerExecution(ctx, rootValue, `queueState\u0000${queueName}`, () =>
    ctx.engine
      .queue(queueName)
      .state()
      .then((state) => state === 'PAUSED'),
  );
}

/**
 * Ring positions and the queue's pause, read once per queue per execution
 * ({@link oncePerExecution}): a page of 500 groups (times aliases) asking for `reason` costs one
 * O(ring) read, not one per group.
 */
function ringIndex(ctx: Context, rootValue: unknown, queueName: string): Promise<RingIndex> {
  return oncePerExecution(ctx, rootValue, `ring\u0000${queueName}`, () =>
    Promise.all([
      ctx.engine.queue(queueName).rota(),
      queuePausedOf(ctx, rootValue, queueName),
    ]).then(([rota, queuePaused]) =>
      indexRing(
        rota.map((entry) => entry.group),
        queuePaused,
        rota,
      ),
    ),
  );
}

/**
 * A ring's positions (1-based); the first occurrence counts (the one claim would serve first).
 * `rota`: the same groups with their levels (DESIGN.md §3, "Levels"), when they were read.
 */
function indexRing(
  ring: readonly string[],
  queuePaused: boolean,
  rota: readonly RotaEntry[] = [],
): RingIndex {
  const position = new Map<string, number>();
  for (const [i, g] of ring.entries()) if (!position.has(g)) position.set(g, i + 1);
  const level = new Map<string, number>();
  for (const entry of rota) if (!level.has(entry.group)) level.set(entry.group, entry.level);
  return { length: ring.length, position, queuePaused, level, firstLevel: rota[0]?.level ?? null };
}

/** Whether a more urgent level on the rota holds the group back (null: it does not). */
function heldBackIn(index: RingIndex, group: string): HeldBack | null {
  const level = index.level.get(group);
  const first = index.firstLevel;
  return level !== undefined && first !== null && first < level ? { level, first } : null;
}

/**
 * `Group.blockedBy` (DESIGN.md §4.2): {@link blockedBy}; for a group on the rota, QUEUE_LIMIT
 * while the queue is at or over its cap (no claim at any level takes a job until a lease ends:
 * the gate that lifts first, so it goes before LEVEL), else LEVEL behind a more urgent level
 * (§3, "Levels"). Reads the cap (O(1)) and, below it, the rota (O(rota)), once per queue per
 * execution each, only for a group on the rota.
 * @param rootValue the execution's root value (`info.rootValue`): a subscription's event
 */
export async function blockedByOf(
  ctx: Context,
  g: GroupInfo,
  rootValue: unknown,
): Promise<BlockedBy | null> {
  const own = blockedBy(g);
  if (own !== null || !g.onRing) return own;
  if (atCap(await capOf(ctx, ctx.engine.queue(g.queue), rootValue))) return 'QUEUE_LIMIT';
  const index = ringOfRead.get(g) ?? (await ringIndex(ctx, rootValue, g.queue));
  return heldBackIn(index, g.id) === null ? null : 'LEVEL';
}

/**
 * Whether `g` is the next group a claim serves: serviceable, at the head of the rota, the queue
 * neither paused nor at its cap, and a live worker there to claim (read once per queue per
 * execution, as `reason` reads them).
 * @param rootValue the execution's root value (`info.rootValue`): a subscription's event
 */
export async function nextToServe(
  ctx: Context,
  g: GroupInfo,
  rootValue: unknown,
): Promise<boolean> {
  if (blockedBy(g) !== null || g.rateReopenedAt !== null) return false;
  const index = ringOfRead.get(g) ?? (await ringIndex(ctx, rootValue, g.queue));
  if (index.queuePaused || index.position.get(g.id) !== 1) return false;
  if (atCap(await capOf(ctx, ctx.engine.queue(g.queue), rootValue))) return false;
  // Next to be served, but by whom: with no live worker nothing runs it (DESIGN.md §4.9).
  return (await workerCountOf(ctx, rootValue, g.queue)) > 0;
}

/** Groups read together with a ring (`Queue.snapshot`) → that ring's index. */
const ringOfRead = new WeakMap<GroupInfo, RingIndex>();

/**
 * Describe `groups` with `ring`, read in the same moment as they were (`Queue.snapshot`): their
 * `reason` then names their place on that ring, never on one read later, so it agrees with the
 * ring shown beside it.
 */
export function describeWithRing(
  groups: readonly GroupInfo[],
  ring: readonly string[],
  queuePaused: boolean,
  size: number = ring.length,
  levels: readonly number[] = [],
): void {
  const rota = levels.map((level, i) => ({ group: ring[i] as string, level }));
  const index = { ...indexRing(ring, queuePaused, rota), length: size, known: ring.length };
  for (const g of groups) ringOfRead.set(g, index);
}

/**
 * The clause every reason ends with while the whole queue is paused (`pauseQueue`, DESIGN.md
 * §4): the gate in front of the ring outlasts the group's own blockers, so a reason that named
 * only those would promise turns that will not come when they lift.
 */
export const QUEUE_PAUSED_CLAUSE = 'the queue is paused: no group gets turns until resumeQueue';

/**
 * `Group.reason`: reads the ring (once per execution) only when the group is serviceable, and
 * the queue's pause (once per execution, O(1)) for every group.
 * @param rootValue the execution's root value (`info.rootValue`): a subscription's event
 */
export async function reason(ctx: Context, g: GroupInfo, rootValue: unknown): Promise<string> {
  const { sentence, queuePaused } = await plainReason(ctx, g, rootValue);
  // A pending timed revert adds a clause (src/resolvers/overrides.ts, DESIGN.md §4.8).
  const withReverts = await withOverrides(ctx, g, rootValue, sentence);
  return queuePaused ? `${withReverts}; ${QUEUE_PAUSED_CLAUSE}` : withReverts;
}

/**
 * The group's own sentence, and whether the queue's pause is still to be said (a group on the
 * ring of a paused queue says it in its sentence already).
 */
async function plainReason(
  ctx: Context,
  g: GroupInfo,
  rootValue: unknown,
): Promise<{ sentence: string; queuePaused: boolean }> {
  const read = ringOfRead.get(g);
  // Not blocked, yet off the ring until the next claim: its sentence needs no ring read.
  if (blockedBy(g) !== null || g.rateReopenedAt !== null) {
    const queuePaused = read?.queuePaused ?? (await queuePausedOf(ctx, rootValue, g.queue));
    // An empty group's next turn depends on its backlog bound: its own, else the queue's.
    const bound =
      blockedBy(g) === 'IDLE' && g.maxPending === null
        ? await oncePerExecution(ctx, rootValue, `defaultMaxPending\u0000${g.queue}`, () =>
            ctx.engine.queue(g.queue).defaultMaxPending(),
          )
        : g.maxPending;
    return { sentence: reasonSentence(g, null, bound), queuePaused };
  }
  const index = read ?? (await ringIndex(ctx, rootValue, g.queue));
  const { length, position, queuePaused, known } = index;
  const at: RingPosition = {
    position: position.get(g.id) ?? null,
    length,
    queuePaused,
    known,
    heldBack: heldBackIn(index, g.id),
  };
  if (!queuePaused) {
    // The queue's cap, a gate in front of the ring like its pause (DESIGN.md §4.2).
    const cap = await capOf(ctx, ctx.engine.queue(g.queue), rootValue);
    if (atCap(cap)) {
      // Past the cap, a more urgent level still goes first (a reserve owed goes before both).
      const place =
        at.position === null
          ? null
          : `on the ring at position ${at.position} of ${length}${at.heldBack ? levelClause(at.heldBack) : ''}`;
      return { sentence: capSentence(g, cap, place), queuePaused };
    }
  }
  const sentence = reasonSentence(g, at);
  // Nothing holds it back, yet nothing claims: say so (DESIGN.md §4.9 "Workers").
  if (
    !queuePaused &&
    at.heldBack === null &&
    g.pending > 0 &&
    (await workerCountOf(ctx, rootValue, g.queue)) === 0
  ) {
    return { sentence: `${sentence}; ${NO_WORKER_CLAUSE}`, queuePaused };
  }
  // On the ring, the sentence itself says the queue is paused ("…, but the queue is paused").
  return { sentence, queuePaused: queuePaused && at.position === null };
}

/**
 * The clause a ready group's reason ends with while no live worker is registered on its queue
 * (DESIGN.md §4.9 "Workers").
 */
export const NO_WORKER_CLAUSE = 'jobs are waiting and no worker is connected';

/** Live workers of the queue, read once per queue per execution: one ZCOUNT. */
function workerCountOf(ctx: Context, rootValue: unknown, queueName: string): Promise<number> {
  return oncePerExecution(ctx, rootValue, `workers\u0000${queueName}`, () =>
    ctx.engine.queue(queueName).workerCount(),
  );
}
