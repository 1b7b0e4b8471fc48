/**
 * Levels in the flat-cost section (DESIGN.md §3, "Levels"): a claim of a queue whose groups
 * stand at 9 levels beside one whose groups stand at 1, the claims serving the most urgent level
 * in both (its groups keep jobs of that level only, so they stay there: each claim pops the
 * level's head from `levels`, reads its new head and puts it at the level's tail). The claim's
 * cost may grow with the levels in use, never with the groups on them: the 9-level queue holds
 * `perLevel` groups at each level, the 1-level queue `perLevel` at level 1. Beside them, the same
 * claims of a queue without priorities (its ring alone), for scale. Measured in alternating
 * windows as the rate-limit case is (bench/rateCost.ts).
 */
import type { Redis } from 'ioredis';
import { type Queue, Ringmaster } from '../src/lanes/index.js';
import type { BenchRedis } from './redis.js';
import { done, measureClaims, newTally, observeScripts, type ScriptCost } from './scriptCost.js';
import { pool, progress } from './util.js';

/** The queues measured: no priorities (the ring), groups at 1 level, groups at 9 levels. */
export const LEVEL_CASES = ['ring', 'one', 'nine'] as const;
export type LevelCase = (typeof LEVEL_CASES)[number];

export interface LevelCostResult {
  /** Groups at each level in use. */
  perLevel: number;
  costs: Record<LevelCase, ScriptCost>;
  /** usec per claim with 9 levels in use ÷ with 1 */
  ratio: number;
  /** usec per claim with 1 level in use ÷ the ring alone */
  ringRatio: number;
}

const QUEUE = 'bench-flat-levels';
/** The level the claims serve: the most urgent. */
const SERVED = 1;
const CONCURRENCY = 16;

/** The case, `o.rounds` rounds of `o.calls` claims per window (the flat-cost section's). */
export async function levelCost(
  redis: BenchRedis,
  conn: Redis,
  o: { readonly rounds: number; readonly calls: number },
  perLevel: number,
): Promise<LevelCostResult> {
  progress(`flat cost: claims with 9 levels in use beside 1 (${perLevel} groups a level)`);
  const setupConn = redis.connect({ enableAutoPipelining: true });
  const queues = {} as Record<LevelCase, Queue>;
  // The served level's groups: each keeps a job of that level for every claim measured.
  const served = (which: LevelCase) => (which === 'ring' ? 5 : SERVED);
  try {
    for (const which of LEVEL_CASES) {
      const setup = new Ringmaster(setupConn).queue(`${QUEUE}-${which}`);
      const levels = which === 'nine' ? [1, 2, 3, 4, 5, 6, 7, 8, 9] : [served(which)];
      for (const level of levels) {
        await pool(perLevel, CONCURRENCY, (i) =>
          setup.enqueue(`l${level}-${i}`, { i }, level === 5 ? {} : { priority: level }),
        );
      }
      // observeScripts: a window longer than a second carries a state-loss check, taken out.
      queues[which] = new Ringmaster(conn, { onScript: observeScripts }).queue(`${QUEUE}-${which}`);
      await queues[which].checkLayout();
    }
  } finally {
    setupConn.disconnect();
  }
  const tallies = { ring: newTally(), one: newTally(), nine: newTally() };
  let done_ = 0;
  for (let round = 0; round <= o.rounds; round++) {
    const order = round % 2 === 0 ? LEVEL_CASES : ([...LEVEL_CASES].reverse() as LevelCase[]);
    for (const which of order) {
      const queue = queues[which];
      const level = served(which);
      // Not measured: a job of the served level for each claim, on the groups it will reach.
      await pool(o.calls, CONCURRENCY, (i) =>
        queue.enqueue(
          `l${level}-${(done_ + i) % perLevel}`,
          { i },
          level === 5 ? {} : { priority: level },
        ),
      );
      await measureClaims(
        redis.admin,
        conn,
        queue,
        o.calls,
        round > 0 ? tallies[which] : newTally(),
        `with ${which} level(s) in use`,
      );
    }
    done_ += o.calls;
  }
  const costs = {
    ring: done(tallies.ring),
    one: done(tallies.one),
    nine: done(tallies.nine),
  };
  return {
    perLevel,
    costs,
    ratio: costs.nine.usecPerCall / costs.one.usecPerCall,
    ringRatio: costs.one.usecPerCall / costs.ring.usecPerCall,
  };
}
