/**
 * The totals of `stats` (pending, saturated, active) under audit and repair (DESIGN.md §2: every
 * state change is atomic; a repair must never make things worse). They are recounted across
 * many script calls, so `reconcile` checks them with a WATCH on `stats`: repair writes them, and
 * audit reports a difference, only when no script changed a total during the recount; a queue
 * that never stands still gets TOTALS findings marked unsettled, and its totals are left alone.
 */
import { describe, expect, it } from 'vitest';
import { type Finding, Queue } from '../../src/lanes/internal.js';
import {
  TOTALS_ATTEMPTS,
  UNSETTLED,
  WATCH_CONNECTION_NAME,
} from '../../src/lanes/queue/reconcile.js';
import { pollUntil, rawState, useEngine } from '../support/lanes.js';

const engine = useEngine();

const totals = (findings: Finding[]) => findings.filter((f) => f.kind === 'TOTALS');
const unsettled = (f: Finding) => f.found.startsWith(`${UNSETTLED}:`);

/** `n` groups `g0000`…, one pending job each, every `limitEvery`-th at limit 1 (0: none). */
async function seedGroups(q: Queue, n: number, limitEvery = 0): Promise<string[]> {
  const groups = Array.from({ length: n }, (_, i) => `g${String(i).padStart(4, '0')}`);
  for (let i = 0; i < n; i += 100) {
    await Promise.all(
      groups.slice(i, i + 100).map(async (g, j) => {
        if (limitEvery > 0 && (i + j) % limitEvery === 0) await q.setLimit(g, 1);
        await q.enqueue(g);
      }),
    );
  }
  return groups;
}

interface Load {
  /** Operations finished so far (count). */
  ops(): number;
  /** Stop every client after its current operation; resolves when all have stopped. */
  stop(): Promise<void>;
}

/**
 * Traffic on `queues` (one connection each) until stopped: enqueues only, or, with `claims`, a
 * mix of enqueue, claim + complete, claim + retry and claim-and-hold (the job stays active).
 * With `bursts`, every client stops together now and then for a few ms, so some recounts see
 * the queue still and some are cut into by the next burst.
 */
function startLoad(queues: Queue[], groups: string[], claims: boolean, bursts = false): Load {
  let stopped = false;
  let ops = 0;
  let quietUntil = 0;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const controller = (async () => {
    while (bursts && !stopped) {
      await sleep(2 + Math.floor(Math.random() * 10));
      quietUntil = Date.now() + 2 + Math.floor(Math.random() * 15);
      await sleep(quietUntil - Date.now());
    }
  })();
  const runs = queues.map(async (cq, c) => {
    let i = c * 104_729;
    while (!stopped) {
      if (Date.now() < quietUntil) {
        await sleep(1);
        continue;
      }
      i = (i * 1_103_515_245 + 12_345) % 2_147_483_648;
      const group = groups[i % groups.length] as string;
      const roll = i % 10;
      if (!claims || roll < 4) {
        await cq.enqueue(group);
      } else {
        const job = await cq.claim();
        if (job && roll < 8) await cq.complete(job.id, job.token as string);
        else if (job && roll === 8) await cq.retry(job.id, job.token as string, 'load');
        // roll 9: the job stays active (leases are 30 s: nothing is reaped during a test).
      }
      ops += 1;
    }
  });
  return {
    ops: () => ops,
    stop: async () => {
      stopped = true;
      await Promise.all([controller, ...runs]);
    },
  };
}

async function untilOps(load: Load, n: number): Promise<void> {
  const target = load.ops() + n;
  while (load.ops() < target) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe('audit and repair: the totals', () => {
  it('on a quiet queue, totals damaged by hand are reported, repaired, and audit is clean', async () => {
    const q = engine.queue();
    const r = engine.redis();
    await seedGroups(q, 450, 3);
    await q.setLimit('g0001', 0); // saturated at once
    await q.claim();
    await q.claim();
    const truth = await r.hmget(q.keys.stats, 'pending', 'saturated', 'active');
    expect(truth.map(Number)).toEqual([448, 1, 2]);
    await r.hset(q.keys.stats, 'pending', '7', 'saturated', '-2', 'active', '99');

    const audit = await q.audit();
    expect(audit.groupsChecked).toBe(450);
    expect(audit.findings).toEqual([
      { kind: 'TOTALS', subject: 'pending', expected: truth[0], found: '7' },
      { kind: 'TOTALS', subject: 'saturated', expected: truth[1], found: '-2' },
      { kind: 'TOTALS', subject: 'active', expected: truth[2], found: '99' },
    ]);
    expect(await r.hmget(q.keys.stats, 'pending', 'saturated', 'active')).toEqual([
      '7',
      '-2',
      '99',
    ]);

    expect((await q.repair()).findings).toEqual(audit.findings);
    expect(await r.hmget(q.keys.stats, 'pending', 'saturated', 'active')).toEqual(truth);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('the connection it watches on is its own, closed afterwards, also when a script throws', async () => {
    const q = engine.queue();
    const r = engine.redis();
    await seedGroups(q, 10);
    const connected = async () =>
      Number((await r.info('clients')).match(/connected_clients:(\d+)/)?.[1]);
    const baseline = await connected();
    expect((await q.repair()).findings).toEqual([]);
    expect((await q.audit()).findings).toEqual([]);
    await pollUntil(
      'the watching connections closed',
      async () => (await connected()) === baseline,
    );
    // A key of the wrong type makes reconcileGroups fail: the error reaches the caller as is.
    await r.set(q.keys.gactive, 'not a hash');
    await expect(q.repair()).rejects.toThrow(/WRONGTYPE/);
    await expect(q.audit()).rejects.toThrow(/WRONGTYPE/);
    await pollUntil(
      'the watching connections closed',
      async () => (await connected()) === baseline,
    );
  });

  it('the WATCH connection lost during the recount: repair fails and writes no total', async () => {
    const q = engine.queue();
    const r = engine.redis();
    await seedGroups(q, 3_000);
    const before = await r.hmget(q.keys.stats, 'pending', 'saturated', 'active');
    const repair = q.repair();
    // Once the WATCH is held (the recount has started), drop that connection, then change a
    // total: a reconnected connection would have no WATCH, and its EXEC would write the stale
    // recount (pending one short).
    let killed = 0;
    await pollUntil('the watching connection killed', async () => {
      const list = (await r.call('CLIENT', 'LIST')) as string;
      const line = list.split('\n').find((l) => l.includes(`name=${WATCH_CONNECTION_NAME} `));
      const id = line?.match(/^id=(\d+)/)?.[1];
      if (id === undefined) return false;
      killed = (await r.call('CLIENT', 'KILL', 'ID', id)) as number;
      return killed === 1;
    });
    await q.enqueue('late');
    await expect(repair).rejects.toThrow(/WATCH on stats closed during the recount/);
    // Nothing was written: the totals are the scripts' own, the late enqueue counted.
    expect(await r.hmget(q.keys.stats, 'pending', 'saturated', 'active')).toEqual([
      String(Number(before[0]) + 1),
      before[1],
      before[2],
    ]);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('repair and audit racing enqueue/claim/complete/retry never leave or report a wrong total (20 rounds, 160 reports)', async () => {
    const q = engine.queue();
    const groups = await seedGroups(q, 650, 5);
    const queues = Array.from({ length: 4 }, () => new Queue(engine.client(), q.name));
    const falseTotals: string[] = [];
    let settled = 0;
    let reports = 0;
    const check = (what: string, findings: Finding[]) => {
      reports += 1;
      // Nothing was damaged: a TOTALS finding that is not "unsettled" is the race talking.
      for (const f of totals(findings)) {
        if (!unsettled(f)) falseTotals.push(`${what}: ${f.subject} ${f.expected} vs ${f.found}`);
      }
      if (totals(findings).length === 0) settled += 1;
    };

    for (let round = 0; round < 20; round += 1) {
      const load = startLoad(queues, groups, true, round % 4 !== 0);
      await untilOps(load, 20);
      for (let i = 0; i < 4; i += 1) {
        check(`round ${round} repair ${i}`, (await q.repair()).findings);
        check(`round ${round} audit ${i}`, (await q.audit()).findings);
      }
      await load.stop();
      // Everything has stopped: the stored totals must be the truth.
      const after = await q.audit();
      expect(after.findings, `round ${round}`).toEqual([]);
    }
    expect(falseTotals).toEqual([]);
    expect(reports).toBe(160);
    // Informative: how many of the reports under load found the queue still for a moment.
    console.info(`[audit.totals] ${settled}/${reports} reports under load settled their totals`);
    const state = await rawState(q);
    expect(state.active.length).toBeGreaterThan(0); // the load left jobs in flight, too
  }, 120_000); // ~20 s alone; past the default 30 s on a 2-core host at load 7 (seen twice)

  it('a queue that never stands still: repair reports the totals unsettled and writes none', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const groups = await seedGroups(q, 2_000);
    // Enqueues to unlimited groups never write stats.saturated: its damage must survive.
    await r.hset(q.keys.stats, 'saturated', '42');
    const queues = Array.from({ length: 4 }, () => new Queue(engine.client(), q.name));
    const load = startLoad(queues, groups, false);
    let repair: Finding[];
    let audit: Finding[];
    try {
      await untilOps(load, 20);
      repair = (await q.repair()).findings;
      expect(await r.hget(q.keys.stats, 'saturated')).toBe('42');
      audit = (await q.audit()).findings;
    } finally {
      await load.stop();
    }
    for (const findings of [repair, audit]) {
      expect(findings.map((f) => `${f.kind} ${f.subject}`)).toEqual([
        'TOTALS pending',
        'TOTALS saturated',
        'TOTALS active',
        'TOTALS delayed',
      ]);
      for (const f of findings) {
        expect(f.found).toMatch(
          new RegExp(`^${UNSETTLED}: the queue changed during each of ${TOTALS_ATTEMPTS} recounts`),
        );
      }
    }
    expect(repair.find((f) => f.subject === 'saturated')?.found).toMatch(/left as stored 42$/);
    expect(audit.find((f) => f.subject === 'saturated')?.found).toMatch(/not checked, stored 42$/);

    // Quiet now: the damage is found, and repaired.
    expect(await r.hget(q.keys.stats, 'saturated')).toBe('42');
    expect((await q.audit()).findings).toEqual([
      { kind: 'TOTALS', subject: 'saturated', expected: '0', found: '42' },
    ]);
    expect(totals((await q.repair()).findings)).toHaveLength(1);
    expect((await q.audit()).findings).toEqual([]);
  });
});
