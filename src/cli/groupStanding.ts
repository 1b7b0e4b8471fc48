/**
 * The words every surface uses for a group's state (DESIGN.md §4.2, "Words for a group's
 * state"): the CLI's tables, `group` and `top`, and the console's badges, one file both take
 * (it imports nothing). They are the API's `GroupState` in the words of queue dashboards
 * (bull-board, Sidekiq, Oban), with SATURATED split into "at limit" and "parked" (limit 0, or
 * below the work in flight), IDLE — nothing waiting — into "busy" (jobs in flight) and "empty"
 * (nothing at all), so a group that is working is never called idle, and READY off the ring
 * called "re-joining". The enum's values stay as they are: they are API.
 */

/** A group's standing: its state as these words tell it. */
export type Standing =
  | 'ready'
  | 'rejoining'
  | 'limit'
  | 'parked'
  | 'paused'
  | 'busy'
  | 'empty'
  | 'rated'
  | 'capped'
  | 'behind';

/** What a standing is judged from: a group as the API answers it. */
export interface StandingOf {
  readonly state: string;
  readonly limit?: number | null | undefined;
  readonly active: number;
  readonly onRing: boolean;
  /**
   * `blockedBy`, when read: QUEUE_LIMIT sets a group on the rota of a queue at its cap apart, LEVEL
   * one behind a more urgent level.
   */
  readonly blockedBy?: string | null | undefined;
}

/**
 * A group's standing. READY off the ring is a group whose rate window reopened and that no claim
 * has put back yet (DESIGN.md §3 "Rate limits"): "re-joining", so "ready" stays exactly "on the
 * ring drawn beside it".
 */
export function standing(g: StandingOf): Standing {
  switch (g.state) {
    case 'READY':
      if (!g.onRing) return 'rejoining';
      if (g.blockedBy === 'QUEUE_LIMIT') return 'capped';
      return g.blockedBy === 'LEVEL' ? 'behind' : 'ready';
    case 'PAUSED':
      return 'paused';
    case 'SATURATED':
      return g.limit !== null && g.limit !== undefined && (g.limit === 0 || g.active > g.limit)
        ? 'parked'
        : 'limit';
    case 'RATE_LIMITED':
      return 'rated';
    default:
      return g.active > 0 ? 'busy' : 'empty';
  }
}

export const STANDING_LABEL: Record<Standing, string> = {
  ready: 'ready',
  rejoining: 're-joining',
  limit: 'at limit',
  parked: 'parked',
  paused: 'paused',
  busy: 'busy',
  empty: 'empty',
  rated: 'rate-limited',
  capped: 'queue at cap',
  behind: 'behind a level',
};

/** What each standing means, for a tooltip. */
export const STANDING_MEANS: Record<Standing, string> = {
  ready: 'on the ring, waiting for its turn',
  rejoining:
    'the token it waited for has come: off the ring until the next claim puts it back (and may serve it at once)',
  limit: 'as many jobs in flight as its limit allows: no turn until one finishes',
  parked: 'limit 0, or lowered below the jobs in flight: no turn until several finish',
  paused: 'paused by an operator: no turn until resumed',
  busy: 'jobs in flight, nothing waiting: no turn needed',
  empty: 'nothing waiting and nothing in flight',
  rated:
    "its rate-limit bucket is short of its next job's cost: no turn until the token it needs comes",
  capped:
    'on the rota, but the queue is at its cap: no turn until a job of the queue finishes and frees a permit (a group owed its reserve gets it first)',
  behind:
    'on the rota, but a more urgent priority level has a group ready: no turn until that level has none',
};

/** Text as words are compared: any case, `-`, `_` and spaces alike (`at-limit`, `AT_LIMIT`). */
export const wordKey = (text: string): string => text.toLowerCase().replace(/[\s_-]+/g, '');

/** The standing a person names with its word (`at limit`, `at-limit`, `Rejoining`), if any. */
export function standingNamed(text: string): Standing | undefined {
  const key = wordKey(text);
  return (Object.keys(STANDING_LABEL) as Standing[]).find(
    (s) => wordKey(STANDING_LABEL[s]) === key,
  );
}

/**
 * What the API's `blockedBy` (DESIGN.md §4.2) says, as a standing: IDLE is busy or empty as the
 * group's jobs in flight say; every other value its own word.
 */
export function blockerStanding(blockedBy: string, active: number): Standing {
  switch (blockedBy) {
    case 'PAUSED':
      return 'paused';
    case 'LIMIT':
      return 'limit';
    case 'PARKED':
      return 'parked';
    case 'RATE_LIMITED':
      return 'rated';
    case 'QUEUE_LIMIT':
      // On the rota of a queue at its cap (DESIGN.md §3, "The queue's cap and reserves").
      return 'capped';
    case 'LEVEL':
      // On the rota, behind a more urgent level (DESIGN.md §3, "Levels").
      return 'behind';
    default:
      return active > 0 ? 'busy' : 'empty';
  }
}
