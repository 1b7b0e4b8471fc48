/**
 * Rate limits in the flat-cost section (DESIGN.md §3, "Rate limits"): a claim of a group with a
 * rate limit and setRateLimit on a ring group (no ring change), on two queues alike but for their
 * rate-limited groups: none, and `rateLimited` of them whose buckets refill in a day (written as
 * claims leave them: `grate`, `gwindow`, `ratelimited`; building them through the API would take
 * 100,000 claims). Each claim call reads the rates and the reopened groups (HMGET `grate`,
 * ZMSCORE and a ZRANGEBYSCORE … LIMIT on `ratelimited`) and the bucket (HMGET `gwindow`), and
 * each claim of a rated group its head's cost before (ZRANGE lane 0 0, HGET cost), the cost taken
 * (HSET `gwindow`) and the next head's cost after. Beside them, in the same rounds, the same
 * claims of a queue without rates (`unrated`: the price of a rate) and of jobs of cost `COST`
 * under a rate with a burst above its max (`cost`: the price of a cost). No bucket runs short in
 * any of them. Measured in alternating windows as the delayed-jobs case is (bench/flatCost.ts).
 *
 * Alone, at a chosen size (the flat-cost section's other cases are not run):
 *   npx tsx bench/rateCost.ts [--rounds=12] [--calls=250] [--rate-limited=100000]
 */
import type { Redis } from 'ioredis';
import { type Queue, Ringmaster } from '../src/lanes/index.js';
import { type BenchRedis, fresh, startBenchRedis } from './redis.js';
import {
  done,
  measureChanges,
  measureClaims,
  newTally,
  observeScripts,
  type ScriptCost,
  type Tally,
} from './scriptCost.js';
import { pool, progress, scriptFlags } from './util.js';

/** Scripts measured beside a queue's rate-limited groups. */
export const RATE_SCRIPTS = ['claim (rated group)', 'setRateLimit'] as const;
export type RateScriptName = (typeof RATE_SCRIPTS)[number];

/** Claims measured beside the rated ones: no rate; jobs of cost `COST` under a burst. */
export const BESIDE_RATE = ['unrated', 'cost'] as const;
export type BesideRate = (typeof BESIDE_RATE)[number];

export interface RateCostResult {
  rateLimited: number;
  /** script → cost with no rate-limited group and with `rateLimited` of them */
  costs: Record<RateScriptName, { none: ScriptCost; many: ScriptCost }>;
  /** script → usec per call with `rateLimited` groups ÷ with none */
  ratio: Record<RateScriptName, number>;
  /** The cost of each job of the `cost` queue. */
  cost: number;
  /** A claim with no rate, and of jobs of cost `cost` (no rate-limited group either way). */
  beside: Record<BesideRate, ScriptCost>;
  /** usec per claim of a rated group ÷ with no rate; of a cost-`cost` job ÷ of a cost-1 job. */
  besideRatio: { rate: number; cost: number };
}

type Which = 'none' | 'many' | BesideRate;

const QUEUE = 'bench-flat-rated';
/** Ring groups of each queue, each with a rate its claims never reach. */
const RING = 10;
const RATE = { max: 1_000_000, windowMs: 86_400_000 } as const;
/** The `cost` queue's rate: a burst above its max, which no run spends (13 × 250 × 5 tokens). */
const BURST_RATE = { max: 500_000, windowMs: 86_400_000, burst: 1_000_000 } as const;
/** Tokens each job of the `cost` queue takes (a call worth 5 of a tenant's quota). */
const COST = 5;
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
  const all = ['none', 'many', 'unrated', 'cost'] as const;
  const queues = {} as Record<Which, Queue>;
  try {
    for (const which of all) {
      const setup = new Ringmaster(setupConn).queue(`${QUEUE}-${which}`);
      await pool(RING, RING, async (i) => {
        if (which === 'cost') await setup.setRateLimit(`r${i}`, BURST_RATE);
        else if (which !== 'unrated') await setup.setRateLimit(`r${i}`, RATE);
        await setup.enqueue(`r${i}`, { i });
      });
      if (which === 'many') {
        const [sec] = await setupConn.time();
        const now = Number(sec) * 1000;
        for (let n = 0; n < rateLimited; n += SETUP_BATCH) {
          const zadd: (string | number)[] = [];
          const rates: string[] = [];
          const buckets: string[] = [];
          for (let i = n; i < Math.min(n + SETUP_BATCH, rateLimited); i++) {
            // An empty bucket of 1 token a day: its next token comes in a day.
            zadd.push(now + 86_400_000, `l${i}`);
            rates.push(`l${i}`, '1:86400000:1');
            buckets.push(`l${i}`, `0:${now}`);
          }
          await setupConn.zadd(setup.keys.rateLimited, ...zadd);
          await setupConn.hset(setup.keys.rate, ...rates);
          await setupConn.hset(setup.keys.rateWindow, ...buckets);
        }
        const count = await setupConn.zcard(setup.keys.rateLimited);
        if (count !== rateLimited) {
          throw new Error(`flat cost: ${count} rate-limited, not ${rateLimited}`);
        }
      }
      // observeScripts: a window longer than a second carries a state-loss check, taken out.
      queues[which] = new Ringmaster(conn, { onScript: observeScripts }).queue(`${QUEUE}-${which}`);
      await queues[which].checkLayout();
    }
  } finally {
    setupConn.disconnect();
  }
  const tallies = {
    none: { 'claim (rated group)': newTally(), setRateLimit: newTally() },
    many: { 'claim (rated group)': newTally(), setRateLimit: newTally() },
  } satisfies Record<'none' | 'many', Record<RateScriptName, Tally>>;
  const besideTallies: Record<BesideRate, Tally> = { unrated: newTally(), cost: newTally() };
  let served = 0;
  for (let round = 0; round <= o.rounds; round++) {
    for (let w = 0; w < all.length; w++) {
      // Each queue in each place in turn, as the cap case (bench/capCost.ts).
      const which = all[(w + round) % all.length] as Which;
      const queue = queues[which];
      const group = (i: number) => `r${(served + i) % RING}`;
      // Not measured: the jobs the claims take.
      const opts = which === 'cost' ? { cost: COST } : {};
      await pool(o.calls, CONCURRENCY, (i) => queue.enqueue(group(i), { i }, opts));
      if (which === 'unrated' || which === 'cost') {
        const tally = round > 0 ? besideTallies[which] : newTally();
        await measureClaims(redis.admin, conn, queue, o.calls, tally, `(${which})`);
        continue;
      }
      const t = (name: RateScriptName) => (round > 0 ? tallies[which][name] : newTally());
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
  const beside = { unrated: done(besideTallies.unrated), cost: done(besideTallies.cost) };
  const rated = costs['claim (rated group)'].none.usecPerCall;
  return {
    rateLimited,
    costs,
    ratio,
    cost: COST,
    beside,
    besideRatio: {
      rate: rated / beside.unrated.usecPerCall,
      cost: beside.cost.usecPerCall / rated,
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const flags = scriptFlags(process.argv.slice(2), {
    values: ['rounds', 'calls', 'rate-limited'],
    switches: [],
  });
  const o = { rounds: flags.whole('rounds', 12, 1), calls: flags.whole('calls', 250, 1) };
  const redis = await startBenchRedis();
  const conn = redis.connect();
  try {
    await fresh(redis.admin);
    const r = await rateCost(redis, conn, o, flags.whole('rate-limited', 100_000, 0));
    const row = (name: string, c: ScriptCost) =>
      `${name.padEnd(34)} ${c.usecPerCall.toFixed(1).padStart(7)} µs ${c.redisCallsPerCall.toFixed(1).padStart(5)} redis.call\n`;
    let out = '';
    for (const name of RATE_SCRIPTS) {
      out += row(`${name}, none rate-limited`, r.costs[name].none);
      out += row(`${name}, ${r.rateLimited} rate-limited`, r.costs[name].many);
      out += `${''.padEnd(34)} ${r.ratio[name].toFixed(2)}×\n`;
    }
    out += row('claim, no rate', r.beside.unrated);
    out += row(`claim, rated, cost ${r.cost}`, r.beside.cost);
    out += `rated ÷ no rate ${r.besideRatio.rate.toFixed(2)}×, cost ${r.cost} ÷ cost 1 ${r.besideRatio.cost.toFixed(2)}×\n`;
    process.stdout.write(out);
  } finally {
    conn.disconnect();
    await redis.stop();
  }
  process.exit(0);
}
