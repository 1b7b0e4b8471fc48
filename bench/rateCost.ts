/**
 * Rate limits in the flat-cost section: a claim of a group with a rate limit (each
 * claim counts into its window: HMGET `grate`, ZMSCORE `ratelimited`, HMGET and HSET `gwindow`,
 * and the look-up of reopened windows, a ZRANGEBYSCORE … LIMIT on `ratelimited`) and
 * setRateLimit on a ring group (no ring change), on two queues alike but for their rate-limited
 * groups: none, and `rateLimited` of them whose windows reopen in a day (written as claims leave
 * them: `grate`, `gwindow`, `ratelimited`; building them through the API would take 100,000
 * claims). Measured in alternating windows as the delayed-jobs case is (bench/flatCost.ts).
 */
import type { Redis } from 'ioredis';
import { type Queue, Ringmaster } from '../src/lanes/index.js';
import type { BenchRedis } from './redis.js';
import {
  done,
  measureChanges,
  measureClaims,
  newTally,
  type ScriptCost,
  type Tally,
} from './scriptCost.js';
import { pool, progress } from './util.js';

/** Scripts measured beside a queue's rate-limited groups. */
export const RATE_SCRIPTS = ['claim (rated group)', 'setRateLimit'] as const;
export type RateScriptName = (typeof RATE_SCRIPTS)[number];

export interface RateCostResult {
  rateLimited: number;
  /** script → cost with no rate-limited group and with `rateLimited` of them */
  costs: Record<RateScriptName, { none: ScriptCost; many: ScriptCost }>;
  /** script → usec per call with `rateLimited` groups ÷ with none */
  ratio: Record<RateScriptName, number>;
}

const QUEUE = 'bench-flat-rated';
/** Ring groups of each queue, each with a rate its claims never reach. */
const RING = 10;
const RATE = { max: 1_000_000, windowMs: 86_400_000 } as const;
/**
 * The rate set by measured call n: its group's visits (RING calls apart) alternate two maxes,
 * neither RATE's, so every call changes the rate. A rate already in force is a no-op that writes
 * no history entry, which would measure less than an operator's setRateLimit does.
 */
const rateOf = (n: number) => ({ ...RATE, max: RATE.max - 1 - (Math.floor(n / RING) % 2) });
const SETUP_BATCH = 10_000;
const CONCURRENCY = 16;

/** The case, `o.rounds` rounds of `o.calls` calls per window (the flat-cost section's). */
export async function rateCost(
  redis: BenchRedis,
  conn: Redis,
  o: { readonly rounds: number; readonly calls: number },
  rateLimited: number,
): Promise<RateCostResult> {
  progress(`flat cost: ${rateLimited} rate-limited groups beside the claims`);
  const setupConn = redis.connect({ enableAutoPipelining: true });
  const queues = {} as Record<'none' | 'many', Queue>;
  try {
    for (const which of ['none', 'many'] as const) {
      const setup = new Ringmaster(setupConn).queue(`${QUEUE}-${which}`);
      await pool(RING, RING, async (i) => {
        await setup.setRateLimit(`r${i}`, RATE);
        await setup.enqueue(`r${i}`, { i });
      });
      if (which === 'many') {
        const [sec] = await setupConn.time();
        const reopen = Number(sec) * 1000 + 86_400_000;
        for (let n = 0; n < rateLimited; n += SETUP_BATCH) {
          const zadd: (string | number)[] = [];
          const rates: string[] = [];
          const windows: string[] = [];
          for (let i = n; i < Math.min(n + SETUP_BATCH, rateLimited); i++) {
            zadd.push(reopen, `l${i}`);
            rates.push(`l${i}`, '1:86400000');
            windows.push(`l${i}`, `${reopen - 86_400_000}:1`);
          }
          await setupConn.zadd(setup.keys.rateLimited, ...zadd);
          await setupConn.hset(setup.keys.rate, ...rates);
          await setupConn.hset(setup.keys.rateWindow, ...windows);
        }
        const count = await setupConn.zcard(setup.keys.rateLimited);
        if (count !== rateLimited) {
          throw new Error(`flat cost: ${count} rate-limited, not ${rateLimited}`);
        }
      }
      queues[which] = new Ringmaster(conn).queue(`${QUEUE}-${which}`);
      await queues[which].checkLayout();
    }
  } finally {
    setupConn.disconnect();
  }
  const tallies = {
    none: { 'claim (rated group)': newTally(), setRateLimit: newTally() },
    many: { 'claim (rated group)': newTally(), setRateLimit: newTally() },
  } satisfies Record<'none' | 'many', Record<RateScriptName, Tally>>;
  let served = 0;
  for (let round = 0; round <= o.rounds; round++) {
    const order = round % 2 === 0 ? (['none', 'many'] as const) : (['many', 'none'] as const);
    for (const which of order) {
      const queue = queues[which];
      const t = (name: RateScriptName) => (round > 0 ? tallies[which][name] : newTally());
      const group = (i: number) => `r${(served + i) % RING}`;
      // Not measured: the jobs the claims take.
      await pool(o.calls, CONCURRENCY, (i) => queue.enqueue(group(i), { i }));
      await measureClaims(
        redis.admin,
        conn,
        queue,
        o.calls,
        t('claim (rated group)'),
        'of a rated group',
      );
      await measureChanges(
        redis.admin,
        conn,
        queue,
        o.calls,
        (i) => queue.setRateLimit(group(i), rateOf(served + i)),
        t('setRateLimit'),
        'setRateLimit',
      );
    }
    served += o.calls;
  }
  const costs = Object.fromEntries(
    RATE_SCRIPTS.map((name) => [
      name,
      { none: done(tallies.none[name]), many: done(tallies.many[name]) },
    ]),
  ) as RateCostResult['costs'];
  const ratio = Object.fromEntries(
    RATE_SCRIPTS.map((name) => [name, costs[name].many.usecPerCall / costs[name].none.usecPerCall]),
  ) as Record<RateScriptName, number>;
  return { rateLimited, costs, ratio };
}
