/**
 * The ranges of the CLI's numeric arguments, in one place. Those the server judges are the
 * server's own bounds (DESIGN.md §5), imported from the engine rather than restated, so a value
 * out of range is a usage error (exit 1) naming the argument and its true range before anything
 * is sent — never graphql-js' "Int cannot represent …" nor a round trip for BAD_USER_INPUT.
 */
import { isIntegerIn, Limits } from '../lanes/limits.js';

/** An inclusive range of whole numbers; for a duration, of ms. */
export interface Bound {
  readonly min: number;
  readonly max: number;
}

/** Each bounded argument's range, by the name the CLI gives it (`<limit>`, `--per`, …). */
export const Bounds = {
  /** `limit <group> <limit>`: `setLimit(limit)`, 0 parks the group. */
  limit: { min: 0, max: Limits.maxLimit },
  /** `queue-limit <limit>`: `setQueueLimit(limit)`, the queue's cap (a limit's range). */
  queueLimit: { min: 0, max: Limits.maxLimit },
  /** `reserve <group> <reserve>`: `setReserve(reserve)`, 0 clears it (a limit's range). */
  reserve: { min: 0, max: Limits.maxLimit },
  /** `max-pending <n>`: `setMaxPending` / `setDefaultMaxPending`, a backlog bound. */
  maxPending: { min: 0, max: Limits.maxPending },
  /** `weight <group> <weight>`: `setWeight(weight)`, turns per round. */
  weight: { min: 1, max: Limits.maxWeight },
  /** `rate <group> <max>`: `setRateLimit(max)`, tokens per window. */
  max: { min: 1, max: Limits.maxRateClaims },
  /** `rate --burst`: `setRateLimit(burst)`, tokens held at most. */
  burst: { min: 1, max: Limits.maxRateClaims },
  /** `rate --per`: `setRateLimit(windowMs)`, ms. */
  per: { min: 1, max: Limits.maxDelayMs },
  /** `limit --for`, `pause --for`: `forMs`, ms. */
  for: { min: 1, max: Limits.maxDelayMs },
  /** `priority <id> <priority>`: `changeJobPriority(priority)`, 1 runs first. */
  priority: { min: Limits.minPriority, max: Limits.maxPriority },
  /** `schedule set --every`: `upsertSchedule(everyMs)`, ms. */
  every: { min: Limits.minEveryMs, max: Limits.maxEveryMs },
  /** `schedule set --max-attempts`: each job's maxAttempts. */
  maxAttempts: { min: 1, max: Limits.maxAttempts },
  /** `upgrade-layout --batch`: `upgradeQueueLayout(batch)`, job ids one step visits. */
  layoutBatch: { min: 1, max: Limits.maxLayoutBatch },
  /** `groups --first`, `dead --first`, `history --first`: a page (`first`). */
  first: { min: 1, max: Limits.maxPageSize },
  /** `top --first`: busiest groups drawn; the CLI's own bound (a screenful). */
  topFirst: { min: 1, max: 100 },
  /**
   * `top --interval`: ms between redraws; the CLI's own bound. At least 100ms, so a slip cannot
   * flood the server; at most an hour, far below setInterval's 2^31-1 ms, past which Node
   * fires it every millisecond instead (`--interval 30d` would have done just that).
   */
  interval: { min: 100, max: 3_600_000 },
  /** `--timeout`: ms one request may take; the CLI's own bound (an hour). */
  timeout: { min: 1, max: 3_600_000 },
} as const satisfies Record<string, Bound>;

/** Whether `n` is a whole number within `bound`: the engine's range check. */
export const withinBound = (n: unknown, bound: Bound): n is number =>
  isIntegerIn(n, bound.min, bound.max);
