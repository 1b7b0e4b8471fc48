/**
 * Fault kind: connections cut under a rate-limited load (DESIGN.md §3 "Rate limits"). Three
 * Workers on their own connections drain groups with token buckets (2 tokens per 200 ms, burst
 * 3) and jobs of cost 1–3, while their connections are killed (CLIENT KILL) every 150 ms;
 * ioredis reconnects and resends, the leases of lost replies lapse and the reaper serves the
 * jobs again. A claim whose reply is lost counts an attempt, so each job may take many
 * (maxAttempts 100: three lost replies would end a job dead, and the queue would not drain);
 * a park cut by a kill ends (DESIGN.md §4.1, Worker), so claims keep the rate's pace.
 *
 * What must hold — never over the rate:
 * - sampled atomically while it runs (one MULTI: the rate, the bucket and TIME), every bucket
 *   parses and holds at most burst tokens, and its time is not after now;
 * - from every claim the Workers saw (`claimedAt`, the Redis clock, and the job's cost), the
 *   bucket bound: in any span [t1, t2] between two claims of a group, the costs claimed sum to
 *   at most burst + max × (t2 − t1) / windowMs — re-claims after a lapsed lease included;
 * - every job ends (the queue drains), and the audit finds nothing.
 */
import { describe, expect, it } from 'vitest';
import { type Job, Queue, Worker } from '../../src/lanes/index.js';
import { useTestRedis } from '../support/redis.js';

const GROUPS = ['a', 'b'];
const RATE = { max: 2, windowMs: 200, burst: 3 };
const JOBS_PER_GROUP = 12;

describe('rate limits while connections are cut', () => {
  const redis = useTestRedis();

  it('never over the rate: atomic samples and the bucket bound over every claim', async () => {
    const admin = redis.client();
    const name = `rate-fault-${Math.random().toString(36).slice(2, 8)}`;
    const q = new Queue(admin, name);
    for (const g of GROUPS) await q.setRateLimit(g, RATE);
    const costs = new Map<string, number>();
    for (let n = 0; n < JOBS_PER_GROUP; n++) {
      for (const g of GROUPS) {
        const cost = 1 + (n % RATE.burst);
        costs.set((await q.enqueue(g, { n }, { cost, maxAttempts: 100 })).id, cost);
      }
    }
    const claims = new Map<string, { at: number; cost: number }[]>();
    const seen = (job: Job) => {
      const list = claims.get(job.group) ?? [];
      list.push({ at: Number(job.claimedAt), cost: costs.get(job.id) ?? 1 });
      claims.set(job.group, list);
    };
    const clients = GROUPS.concat('c').map(() => redis.client());
    const workers = clients.map(
      (c) =>
        new Worker(
          new Queue(c, name),
          async (job) => {
            seen(job);
          },
          { leaseMs: 300, parkTimeoutMs: 200 },
        ),
    );
    for (const w of workers) w.on('error', () => undefined);
    const samples: string[] = [];
    let sampled = 0;
    const sampler = setInterval(async () => {
      const m = admin.multi();
      m.hgetall(q.keys.rate);
      m.hgetall(q.keys.rateWindow);
      m.time();
      const [[, rates], [, buckets], [, time]] = ((await m.exec()) ?? []) as [
        [unknown, Record<string, string>],
        [unknown, Record<string, string>],
        [unknown, [string, string]],
      ];
      const now = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
      sampled += 1;
      for (const [g, raw] of Object.entries(buckets)) {
        const [, , burst] = (rates[g] ?? '').split(':').map(Number);
        const bucket = /^(-?\d+):(\d+)$/.exec(raw);
        if (!burst || bucket === null || Number(bucket[1]) > burst || Number(bucket[2]) > now) {
          samples.push(`${g}: bucket ${raw} under rate ${rates[g]} at ${now}`);
        }
      }
    }, 20);
    const killer = setInterval(() => {
      admin.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes').catch(() => undefined);
    }, 150);
    try {
      const started = Date.now();
      for (;;) {
        const stats = await admin.hgetall(q.keys.stats);
        if (Number(stats.completed) >= GROUPS.length * JOBS_PER_GROUP) break;
        if (Date.now() - started > 25_000) throw new Error(`not drained: ${JSON.stringify(stats)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      clearInterval(killer);
      clearInterval(sampler);
      await Promise.all(workers.map((w) => w.close()));
    }
    expect(samples).toEqual([]);
    expect(sampled).toBeGreaterThan(10);
    for (const g of GROUPS) {
      const list = (claims.get(g) ?? []).sort((x, y) => x.at - y.at);
      expect(list.length).toBeGreaterThanOrEqual(JOBS_PER_GROUP);
      for (let i = 0; i < list.length; i++) {
        let spent = 0;
        const from = (list[i] as { at: number }).at;
        for (let j = i; j < list.length; j++) {
          const { at, cost } = list[j] as { at: number; cost: number };
          spent += cost;
          expect(
            spent * RATE.windowMs,
            `${g}: ${spent} tokens in [${from}, ${at}]`,
          ).toBeLessThanOrEqual(RATE.burst * RATE.windowMs + RATE.max * (at - from));
        }
      }
    }
    expect((await q.audit()).findings).toEqual([]);
  }, 40_000);
});
