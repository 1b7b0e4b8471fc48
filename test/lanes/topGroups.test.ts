/**
 * `Queue.topGroups` (DESIGN.md §3, "Group rankings") through the engine: OLDEST_PENDING mends
 * the stale entries of `heads` it walks, at most METRICS_HEAD_STEPS (100) a call, answering the
 * groups settled so far and the rest on the next calls; the rankings' keys go with the work
 * (an emptied queue holds neither). Rankings against brute force after random operations:
 * test/lanes/heads.property.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { useEngine } from '../support/lanes.js';

const engine = useEngine();

describe('Queue.topGroups', () => {
  it('OLDEST_PENDING works off a backlog of stale heads 100 entries a call', async () => {
    const q = engine.queue();
    const groups = Array.from({ length: 150 }, (_, i) => `g${String(i).padStart(3, '0')}`);
    // Two rounds: ids 1..150 (one per group), then 151..300.
    await q.enqueueMany(groups.map((group) => ({ group, payload: 1 })));
    await q.enqueueMany(groups.map((group) => ({ group, payload: 2 })));
    // Claim every group's first job: every entry of heads is stale (its lane's oldest rose).
    await q.completeAndClaim([], { claim: 150, leaseMs: 60_000 });
    expect(await q.redis.zcard(q.keys.heads)).toBe(150);

    // 150 stale entries ahead of the first settled one: the first call mends 100, answers none.
    expect(await q.topGroups('OLDEST_PENDING', 5)).toEqual([]);
    const second = await q.topGroups('OLDEST_PENDING', 5);
    expect(second.map((g) => g.id)).toEqual(groups.slice(0, 5));
    expect(second.map((g) => g.oldestPendingId)).toEqual(['151', '152', '153', '154', '155']);
    // Settled: a third call answers the same at once.
    expect((await q.topGroups('OLDEST_PENDING', 5)).map((g) => g.id)).toEqual(groups.slice(0, 5));
    // The other rankings need no mending: 150 groups of 1 pending and 1 active, in group order.
    expect((await q.topGroups('PENDING', 3)).map((g) => [g.id, g.pending])).toEqual([
      ['g000', 1],
      ['g001', 1],
      ['g002', 1],
    ]);
    expect((await q.topGroups('ACTIVE', 2)).map((g) => [g.id, g.active])).toEqual([
      ['g000', 1],
      ['g001', 1],
    ]);
  });

  it('a drained queue leaves no ranking behind', async () => {
    const q = engine.queue();
    await q.enqueue('a', null);
    await q.enqueue('b', null);
    const { claimed } = await q.completeAndClaim([], { claim: 2, leaseMs: 60_000 });
    expect(await q.redis.exists(q.keys.pendingRank)).toBe(0);
    expect(await q.redis.zcard(q.keys.activeRank)).toBe(2);
    await q.completeAndClaim(
      claimed.map((j) => ({ id: j.id, token: j.token as string })),
      { claim: 0 },
    );
    expect(await q.redis.exists(q.keys.activeRank)).toBe(0);
    for (const by of ['PENDING', 'OLDEST_PENDING', 'ACTIVE'] as const) {
      expect(await q.topGroups(by)).toEqual([]);
    }
  });
});
