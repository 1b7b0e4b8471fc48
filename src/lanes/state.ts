/** Pure derivations from a group's stored fields: invariant I1 and DESIGN.md §4's state. */
import type { GroupInfo, GroupState } from './types.js';

/**
 * The stored limit as the scripts read it (`includes/groupState.lua`): a non-negative integer
 * within 2^53−1, else no limit (null).
 */
export function parseLimit(raw: string | null | undefined): number | null {
  if (raw == null || !/^\d+$/.test(raw)) return null;
  const n = Number(raw);
  // Past 2^53−1 Number() rounds: the scripts cannot compare such a limit exactly either.
  return Number.isSafeInteger(n) ? n : null;
}

/** The stored active count; missing or garbage is 0. */
export function parseCount(raw: string | number | null | undefined): number {
  const n = Number(raw ?? 0);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/** Build a {@link GroupInfo} from raw fields, deriving `onRing` (I1) and `state`. */
export function groupInfo(
  queue: string,
  id: string,
  rawLimit: string | null | undefined,
  rawActive: string | number | null | undefined,
  pending: number,
  paused: boolean,
): GroupInfo {
  const limit = parseLimit(rawLimit);
  const active = parseCount(rawActive);
  const state = groupState({ limit, active, pending, paused });
  return { id, queue, limit, active, pending, paused, onRing: state === 'READY', state };
}

/**
 * DESIGN.md §4's state, by its precedence: PAUSED if paused; else SATURATED if a limit is set and
 * `active` >= it; else READY if `pending` > 0; else IDLE. READY is exactly "on the ring" (I1).
 * The one place this order is written: `Group.blockedBy` reads it too.
 */
export function groupState(
  g: Pick<GroupInfo, 'limit' | 'active' | 'pending' | 'paused'>,
): GroupState {
  if (g.paused) return 'PAUSED';
  if (g.limit !== null && g.active >= g.limit) return 'SATURATED';
  return g.pending > 0 ? 'READY' : 'IDLE';
}

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
