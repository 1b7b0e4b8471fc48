/**
 * The queue's cap in the flat-cost section: a claim on a queue with no cap against one on a
 * queue whose cap is the sum of its groups' reserves, so every claim of a window is a scarce one
 * (DESIGN.md §3, "The queue's cap and reserves"): the claim reads the cap with `paused` (one
 * HMGET either way), counts what is in flight (ZCARD `active`), reads `greserve` and its groups'
 * standing, and serves the first owed group from the ring's head (LREM + LPUSH). Two queues alike
 * but for the cap, measured in alternating windows as the rate-limit case is (bench/rateCost.ts).
 */
import type { Redis } from 'ioredis';
import { type Queue, Ringmaster } from '../src/lanes/index.js';
import type { BenchRedis } from './redis.js';
import { done, measureClaims, newTally, type ScriptCost, type Tally } from './scriptCost.js';
import { pool, progress } from './util.js';

export interface CapCostResult {
  /** Ring groups, each with a reserve of calls ÷ groups. */
  groups: number;
  /** The claim's cost on the queue with no cap and on the capped one. */
  costs: { none: ScriptCost; capped: ScriptCost };
  /** µs per claim capped ÷ with no cap. */
  ratio: number;
}

const QUEUE = 'bench-flat-capped';
const RING = 10;
const CONCURRENCY = 16;

/** The case, `o.rounds` rounds of `o.calls` claims per window (the flat-cost section's). */
export async function capCost(
  redis: BenchRedis,
  conn: Redis,
  o: { readonly rounds: number; readonly calls: number },
): Promise<CapCostResult> {
  progress('flat cost: claims under a queue cap with reserves');
  const reserve = Math.max(1, Math.floor(o.calls / RING));
  const queues = {} as Record<'none' | 'capped', Queue>;
  for (const which of ['none', 'capped'] as const) {
    const queue = new Ringmaster(conn).queue(`${QUEUE}-${which}`);
    if (which === 'capped') {
      // The cap is the reserves' sum: every claim of a window (at most calls in flight) is
      // scarce, and each finds an owed group.
      await queue.setQueueLimit(reserve * RING);
      for (let i = 0; i < RING; i++) await queue.setReserve(`r${i}`, reserve);
    }
    await queue.checkLayout();
    queues[which] = queue;
  }
  const tallies: Record<'none' | 'capped', Tally> = { none: newTally(), capped: newTally() };
  const calls = reserve * RING;
  for (let round = 0; round <= o.rounds; round++) {
    const order = round % 2 === 0 ? (['none', 'capped'] as const) : (['capped', 'none'] as const);
    for (const which of order) {
      const queue = queues[which];
      // Not measured: the jobs the claims take, as many per group as its reserve.
      await pool(calls, CONCURRENCY, (i) => queue.enqueue(`r${i % RING}`, { i }));
      await measureClaims(
        redis.admin,
        conn,
        queue,
        calls,
        round > 0 ? tallies[which] : newTally(),
        `(${which})`,
      );
    }
  }
  const costs = { none: done(tallies.none), capped: done(tallies.capped) };
  return { groups: RING, costs, ratio: costs.capped.usecPerCall / costs.none.usecPerCall };
}
