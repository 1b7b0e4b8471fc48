/**
 * The scripts of the operator actions and job reads on their own (DESIGN.md §3):
 * - readJobs-4.lua pages exactly as a plain sort of (score, member bytes) says, in both orders,
 *   from any cursor — one whose member is there, gone, or at another score — over indexes full
 *   of equal scores (a property test against that reference);
 * - requeueDead-8.lua and removeJobs-10.lua refuse a group whose active count they cannot hold
 *   exactly (DATA_OUT_OF_RANGE) before their first write, and a ZADD score from a garbage
 *   `score` field falls back to the id.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RingmasterError } from '../../src/lanes/index.js';
import { Connection } from '../../src/lanes/redis/connection.js';
import { Commands, type ReadJobsReply } from '../../src/lanes/scripts/commands.js';
import { placeJob } from '../support/jobs.js';
import { snapshot, useEngine } from '../support/lanes.js';

const engine = useEngine();

interface Entry {
  score: number;
  id: string;
}

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The members after `cursor` in the index's order, as a plain sort says. */
function reference(entries: Entry[], desc: boolean, cursor: Entry | null, first: number) {
  const asc = [...entries].sort((x, y) => x.score - y.score || byBytes(x.id, y.id));
  const ordered = desc ? asc.reverse() : asc;
  const after = (e: Entry) => {
    if (cursor === null) return true;
    if (e.score !== cursor.score) return desc ? e.score < cursor.score : e.score > cursor.score;
    return desc ? byBytes(e.id, cursor.id) < 0 : byBytes(e.id, cursor.id) > 0;
  };
  const rest = ordered.filter(after);
  return { ids: rest.slice(0, first).map((e) => e.id), more: rest.length > first };
}

describe('readJobs-4.lua', () => {
  it('pages as (score, member bytes) order says, from any cursor, in both orders', async () => {
    const q = engine.queue();
    const commands = new Commands(Connection.of(q.redis), q.keys);
    const index = `${q.keys.base}test-index`;
    const member = fc.oneof(
      fc.integer({ min: 0, max: 120 }).map(String),
      fc.constantFrom('a', 'b', 'a:b', 'é', '10', '9'),
    );
    const entries = fc.uniqueArray(
      fc.record({ score: fc.integer({ min: -2, max: 3 }), id: member }),
      { selector: (e) => e.id, maxLength: 40 },
    );
    await fc.assert(
      fc.asyncProperty(
        entries,
        fc.boolean(),
        fc.integer({ min: 1, max: 7 }),
        fc.option(fc.record({ score: fc.integer({ min: -3, max: 4 }), id: member }), {
          nil: null,
        }),
        async (list, desc, first, cursor) => {
          await q.redis.del(index);
          if (list.length > 0) await q.redis.zadd(index, ...list.flatMap((e) => [e.score, e.id]));
          const [total, more, ids, scores] = (await commands.readJobs({
            index,
            order: desc ? 'desc' : 'asc',
            first,
            afterScore: cursor === null ? '' : String(cursor.score),
            afterId: cursor?.id ?? '',
            group: '',
            kind: '',
          })) as ReadJobsReply;
          const want = reference(list, desc, cursor, first);
          expect({ ids, more: more === 1 }).toEqual(want);
          expect(total).toBe(list.length);
          expect(scores.map(Number)).toEqual(ids.map((id) => list.find((e) => e.id === id)?.score));
        },
      ),
      { numRuns: 300, seed: 16 },
    );
  });
});

describe('the actions refuse before their first write', () => {
  it('requeueDead and removeJobs: a limited group whose active count is not a safe integer', async () => {
    const q = engine.queue();
    const dead = await placeJob(q, 'a', 'dead');
    await q.enqueue('a');
    await q.setLimit('a', 5);
    await q.redis.hset(q.keys.gactive, 'a', '99999999999999999999');
    const before = await snapshot(q.redis);
    for (const call of [
      () => q.requeueDead({ ids: [dead] }),
      () => q.requeueDead({ all: true }),
      () => q.purgeGroup('a'),
      () => q.removeJobs({ ids: ['2'] }),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RingmasterError);
      expect((error as RingmasterError).code).toBe('DATA_OUT_OF_RANGE');
      expect(await snapshot(q.redis)).toEqual(before);
    }
    // Repair rewrites the count; then both work.
    await q.repair();
    expect(await q.requeueDead({ ids: [dead] })).toMatchObject({ count: 1 });
    expect(await q.purgeGroup('a')).toMatchObject({ count: 2 });
  });

  it('requeueDead: a garbage score field falls back to the id as the FIFO place', async () => {
    const q = engine.queue();
    const dead = await placeJob(q, 'a', 'dead');
    await q.redis.hset(q.keys.job(dead), 'score', 'nan');
    await q.requeueDead({ ids: [dead] });
    expect(await q.redis.zscore(q.keys.lane('a'), dead)).toBe(dead);
  });
});
