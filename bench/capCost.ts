/**
 * The queue's cap in the flat-cost section (DESIGN.md §3, "The queue's cap and reserves"): a
 * claim on a queue with no cap against two capped ones with reserves. `plenty`: a cap four times
 * a window's claims, a reserve of 1 per group, so permits are never scarce and the claim pays the
 * cap's read with `paused` (one HMGET either way) and a ZCARD of `active`. `scarce`: the cap is
 * the sum of the reserves, so every claim of a window is scarce: it also reads `greserve` and its
 * groups' limits and counts and serves the first owed group where it stands on the ring. Three
 * queues alike but for the cap, measured in turn as the rate-limit case is (bench/rateCost.ts).
 * Run alone: `npx tsx bench/capCost.ts [--rounds=12] [--calls=250]`.
 */
import type { Redis } from 'ioredis';
import { type Queue, Ringmaster } from '../src/lanes/index.js';
import { type BenchRedis, fresh, startBenchRedis } from './redis.js';
import {
  done,
  measureClaims,
  newTally,
  observeScripts,
  type ScriptCost,
  type Tally,
} from './scriptCost.js';
import { pool, progress, scriptFlags } from './util.js';

export interface CapCostResult {
  /** Ring groups, each with a reserve of calls ÷ groups. */
  groups: number;
  /** The claim's cost on the queue with no cap and on the capped ones. */
  costs: Record<Which, ScriptCost>;
  /** µs per claim under each cap ÷ with no cap. */
  ratio: { plenty: number; scarce: number };
}

type Which = 'none' | 'plenty' | 'scarce';

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
  const queues = {} as Record<Which, Queue>;
  for (const which of ['none', 'plenty', 'scarce'] as const) {
    // observeScripts: a window longer than a second carries a state-loss check, taken out.
    const queue = new Ringmaster(conn, { onScript: observeScripts }).queue(`${QUEUE}-${which}`);
    if (which === 'scarce') {
      // The cap is the reserves' sum: every claim of a window (at most calls in flight) is
      // scarce, and each finds an owed group.
      await queue.setQueueLimit(reserve * RING);
      for (let i = 0; i < RING; i++) await queue.setReserve(`r${i}`, reserve);
    }
    if (which === 'plenty') {
      await queue.setQueueLimit(4 * reserve * RING);
      for (let i = 0; i < RING; i++) await queue.setReserve(`r${i}`, 1);
    }
    await queue.checkLayout();
    queues[which] = queue;
  }
  const tallies: Record<Which, Tally> = {
    none: newTally(),
    plenty: newTally(),
    scarce: newTally(),
  };
  const calls = reserve * RING;
  for (let round = 0; round <= o.rounds; round++) {
    const all = ['none', 'plenty', 'scarce'] as const;
    for (let w = 0; w < all.length; w++) {
      const which = all[(w + round) % all.length] as Which;
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
  const costs = {
    none: done(tallies.none),
    plenty: done(tallies.plenty),
    scarce: done(tallies.scarce),
  };
  const over = (c: ScriptCost) => c.usecPerCall / costs.none.usecPerCall;
  return { groups: RING, costs, ratio: { plenty: over(costs.plenty), scarce: over(costs.scarce) } };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const flags = scriptFlags(process.argv.slice(2), { values: ['rounds', 'calls'], switches: [] });
  const o = { rounds: flags.whole('rounds', 12, 1), calls: flags.whole('calls', 250, 1) };
  const redis = await startBenchRedis();
  const conn = redis.connect();
  try {
    await fresh(redis.admin);
    const r = await capCost(redis, conn, o);
    let out = '';
    for (const which of ['none', 'plenty', 'scarce'] as const) {
      const c = r.costs[which];
      out += `${`claim, cap ${which}`.padEnd(20)} ${c.usecPerCall.toFixed(1).padStart(7)} µs ${c.redisCallsPerCall.toFixed(1).padStart(5)} redis.call\n`;
    }
    out += `plenty ÷ none ${r.ratio.plenty.toFixed(2)}×, scarce ÷ none ${r.ratio.scarce.toFixed(2)}×\n`;
    process.stdout.write(out);
  } finally {
    conn.disconnect();
    await redis.stop();
  }
  process.exit(0);
}
