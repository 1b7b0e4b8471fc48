/** Pure derivations from a group's stored fields: invariant I1 and DESIGN.md §4's state. */
import type {
  GroupInfo,
  GroupState,
  QueueCap,
  QueueStats,
  RateLimit,
  TimedOverride,
} from '../types.js';

/**
 * The stored limit as the scripts read it (`includes/groupState.lua`): a non-negative integer
 * within 2^53−1, else no limit (null). A script's integer reply is judged as its digits.
 */
export function parseLimit(raw: string | number | null | undefined): number | null {
  if (raw == null) return null;
  const text = String(raw);
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  // Past 2^53−1 Number() rounds: the scripts cannot compare such a limit exactly either.
  return Number.isSafeInteger(n) ? n : null;
}

/** The stored active count; missing or garbage is 0. */
export function parseCount(raw: string | number | null | undefined): number {
  const n = Number(raw ?? 0);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/**
 * A group's stored fields as `includes/groupReply.lua` answers them, in order:
 * limit, active, pending, paused (0|1), weight, rate (`<max>:<windowMs>:<burst>`), rateLimitedUntil,
 * limitOverride (JSON), pauseOverride (JSON), rateReopenedAt, reserve, maxPending; a missing one is null. The script
 * judged the rate on the Redis clock: rateLimitedUntil only while the reopening is ahead,
 * rateReopenedAt once it has come and the group still waits in `ratelimited` for a claim.
 */
export type GroupFields = readonly (string | number | null)[];

/** How many fields `includes/groupReply.lua` answers per group (its GROUP_FIELD_COUNT). */
export const GROUP_FIELD_COUNT = 12;

/**
 * Build a {@link GroupInfo} from its raw fields, deriving `state` and `onRing` (I1: READY and
 * not waiting for a claim to re-ring it after its rate window reopened, `rateReopenedAt`).
 */
export function groupInfo(queue: string, id: string, fields: GroupFields): GroupInfo {
  const [
    rawLimit,
    rawActive,
    pending,
    paused,
    weight,
    rate,
    until,
    limitOver,
    pauseOver,
    reopened,
    rawReserve,
    rawMaxPending,
  ] = fields;
  const limit = parseLimit(rawLimit);
  const active = parseCount(rawActive);
  const isPaused = Number(paused) === 1;
  const pendingCount = Number(pending ?? 0);
  const rateLimitedUntil = until == null ? null : Number(until);
  const rateReopenedAt = reopened == null ? null : Number(reopened);
  const state = groupState({
    limit,
    active,
    pending: pendingCount,
    paused: isPaused,
    rateLimitedUntil,
  });
  return {
    id,
    queue,
    limit,
    active,
    pending: pendingCount,
    paused: isPaused,
    // Off the ring while it waits for the claim that promotes it (DESIGN.md §3 "Rate limits").
    onRing: state === 'READY' && rateReopenedAt === null,
    state,
    weight: parseWeight(weight),
    rateLimit: parseRate(rate),
    rateLimitedUntil,
    rateReopenedAt,
    limitOverride: parseOverride('limit', limitOver),
    pauseOverride: parseOverride('pause', pauseOver),
    reserve: parseLimit(rawReserve) ?? 0,
    maxPending: parseLimit(rawMaxPending),
  };
}

/** The stored weight: a positive safe integer, else 1 (the default: one turn per round). */
export function parseWeight(raw: string | number | null | undefined): number {
  const n = Number(raw ?? 1);
  return Number.isSafeInteger(n) && n >= 1 ? n : 1;
}

/**
 * The stored rate `<max>:<windowMs>:<burst>` (an old `<max>:<windowMs>` reads as burst = max),
 * or null for none or one that does not parse (includes/rateLimit.lua parseRate's twin).
 */
export function parseRate(raw: string | number | null | undefined): RateLimit | null {
  const match = raw == null ? null : /^(\d+):(\d+)(?::(\d+))?$/.exec(String(raw));
  if (match === null) return null;
  const max = Number(match[1]);
  const windowMs = Number(match[2]);
  const burst = match[3] === undefined ? max : Number(match[3]);
  return [max, windowMs, burst].every((n) => n >= 1 && Number.isSafeInteger(n))
    ? { max, windowMs, burst }
    : null;
}

/**
 * A stored timed override of `kind` (`P:{Q}:goverride`, JSON text), or null for none: the twin of
 * `overrideOf` in src/lua/includes/overrideData.lua, which applyOverrides reverts by and the audit
 * judges by (DESIGN.md §4.8, I6; test/lua/includes.test.ts checks they agree). Null unless it
 * decodes to a JSON object whose `until` and `setAt` are safe integers (ms). `revertTo` is what
 * the revert applies: for a limit a non-negative safe integer, anything else null (no limit);
 * for a pause `true`, anything else `false` (resume). `actor`: a string, anything else ''.
 */
export function parseOverride(
  kind: 'limit' | 'pause' | 'queueLimit',
  raw: string | number | null | undefined,
): TimedOverride | null {
  if (typeof raw !== 'string') return null;
  let o: unknown;
  try {
    o = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof o !== 'object' || o === null) return null;
  const { until, setAt, revertTo, actor } = o as Record<string, unknown>;
  if (!Number.isSafeInteger(until) || !Number.isSafeInteger(setAt)) return null;
  return {
    until: until as number,
    revertTo:
      kind !== 'pause'
        ? Number.isSafeInteger(revertTo) && (revertTo as number) >= 0
          ? (revertTo as number)
          : null
        : revertTo === true,
    setAt: setAt as number,
    actor: typeof actor === 'string' ? actor : '',
  };
}

/**
 * DESIGN.md §4's state, by its precedence: PAUSED if paused; else SATURATED if a limit is set and
 * `active` >= it; else RATE_LIMITED while it is in `ratelimited` (`rateLimitedUntil` not null,
 * DESIGN.md §3 "Rate limits"); else READY if `pending` > 0; else IDLE. READY is exactly "on the
 * ring" (I1). The one place this order is written: `Group.blockedBy` reads it too.
 * `rateLimitedUntil` left out counts as not rate-limited.
 */
export function groupState(g: StateFields): GroupState {
  return groupBlocks(g)[0] ?? (g.pending > 0 ? 'READY' : 'IDLE');
}

/** The fields a group's state is judged from; `rateLimitedUntil` left out: not rate-limited. */
type StateFields = Pick<GroupInfo, 'limit' | 'active' | 'pending' | 'paused'> &
  Partial<Pick<GroupInfo, 'rateLimitedUntil'>>;

/**
 * Every state that keeps `g` off the ring, in {@link groupState}'s precedence (its first is the
 * group's state); empty for a group that is READY or IDLE. A group may be held by several at
 * once — paused, at its limit and rate-limited — and each still holds when one before it lifts
 * (`Group.reason` names them all).
 */
export function groupBlocks(g: StateFields): ('PAUSED' | 'SATURATED' | 'RATE_LIMITED')[] {
  const blocks: ('PAUSED' | 'SATURATED' | 'RATE_LIMITED')[] = [];
  if (g.paused) blocks.push('PAUSED');
  if (g.limit !== null && g.active >= g.limit) blocks.push('SATURATED');
  if (g.rateLimitedUntil != null) blocks.push('RATE_LIMITED');
  return blocks;
}

/**
 * Whether the queue is at (or over) its cap (DESIGN.md §3, "The queue's cap and reserves"): no
 * claim takes a job until a lease ends. `Group.blockedBy` QUEUE_LIMIT, `reason`, and the watch
 * of a group read it.
 */
export const atCap = (cap: Pick<QueueCap, 'limit' | 'active'>): boolean =>
  cap.limit !== null && cap.active >= cap.limit;

/**
 * A retention policy from its two stored fields (`P:{Q}:settings` `<kind>Count`,
 * `<kind>AgeMs`), read as the scripts read them (`retentionFrom` in
 * `src/lua/includes/retention.lua`): a count that is not a non-negative integer within
 * ±(2^53−1) is the default's; an age 'none' is no age bound (null), one that is not a positive
 * integer within it is the default's. `defaults` is `Defaults.completedRetention` or
 * `Defaults.deadRetention`.
 */
export function retentionFrom(
  defaults: { readonly count: number; readonly ageMs: number },
  rawCount: string | null | undefined,
  rawAgeMs: string | null | undefined,
): { count: number; ageMs: number | null } {
  const exact = (raw: string | null | undefined): number | null => {
    if (raw == null || !/^-?\d+$/.test(raw)) return null;
    const n = Number(raw);
    // + 0: '-0' is 0, as Lua's tonumber compares it.
    return Number.isSafeInteger(n) ? n + 0 : null;
  };
  const count = exact(rawCount);
  const age = exact(rawAgeMs);
  return {
    count: count !== null && count >= 0 ? count : defaults.count,
    ageMs: rawAgeMs === 'none' ? null : age !== null && age > 0 ? age : defaults.ageMs,
  };
}

/** The event counters from the raw `stats` hash (missing or garbage fields are 0). */
export function statsFrom(s: Record<string, string | undefined>): QueueStats {
  return {
    enqueued: parseCount(s.enqueued),
    claimed: parseCount(s.claimed),
    completed: parseCount(s.completed),
    retried: parseCount(s.retried),
    reaped: parseCount(s.reaped),
    dead: parseCount(s.dead),
    removed: parseCount(s.removed),
    requeued: parseCount(s.requeued),
  };
}

/**
 * The queue's cap from its stored fields (`settings.limit`, `settings.reserved`, `goverride`
 * `queueLimit:`) and ZCARD `active`, read as the claim reads them (DESIGN.md §3, "The queue's cap
 * and reserves"): a limit that is not a non-negative safe integer is no cap.
 */
export function queueCap(
  limit: string | null | undefined,
  active: number | string | null | undefined,
  reserved: number | string | null | undefined,
  override: string | null | undefined,
): QueueCap {
  return {
    limit: parseLimit(limit),
    active: parseCount(active),
    reserved: parseLimit(reserved) ?? 0,
    override: parseOverride('queueLimit', override),
  };
}
