/**
 * Page cursors name the listing that issued them (DESIGN.md §4.1, "Cursors"): a cursor of job
 * pages carries its queue, state and group; of group pages its queue and prefix; of history
 * pages its queue and group. One given to another listing is refused, BAD_USER_INPUT `after`,
 * with a message saying to start without `after`, and nothing is written; within its own
 * listing it pages as before. A cursor of the form issued before (no listing) is refused alike.
 */
import { describe, expect, it } from 'vitest';
import { type Job, type Queue, RingmasterError } from '../../src/lanes/index.js';
import { snapshot, useEngine } from '../support/lanes.js';

const engine = useEngine();

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

/** `run` is refused as a cursor of another listing, and changes nothing in Redis. */
async function refusedAsOther(q: Queue, run: () => Promise<unknown>): Promise<void> {
  const before = await snapshot(q.redis);
  const error = await run().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RingmasterError);
  expect(error).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'after' });
  expect((error as Error).message).toMatch(
    /^after: is a cursor of another listing \(.+\): read this listing from its start, without `after`$/,
  );
  expect(await snapshot(q.redis)).toEqual(before);
}

/** Two groups with two dead jobs each and two pending each. */
async function jobsIn(q: Queue): Promise<void> {
  for (const group of ['a', 'b']) {
    for (let i = 0; i < 2; i++) {
      await q.enqueue(group, i, { maxAttempts: 1 });
      const job = (await q.claim()) as Job;
      await q.retry(job.id, job.token as string, 'boom');
    }
  }
  // Pending last, so the claims above took the jobs they were to kill.
  for (const group of ['a', 'b']) {
    await q.enqueue(group, 'p1');
    await q.enqueue(group, 'p2');
  }
}

describe('job cursors (Queue.jobs, Group.jobs)', () => {
  it('page on within their own listing', async () => {
    const q = engine.queue();
    await jobsIn(q);
    const first = await q.jobs({ state: 'DEAD', first: 2 });
    expect(first.hasNextPage).toBe(true);
    const next = await q.jobs({ state: 'DEAD', first: 2, after: first.endCursor });
    expect(next.jobs).toHaveLength(2);
    expect(next.jobs.map((j) => j.id)).not.toContain(first.jobs[0]?.id);
    const lane = await q.jobs({ state: 'PENDING', group: 'a', first: 1 });
    expect(
      (await q.jobs({ state: 'PENDING', group: 'a', after: lane.endCursor })).jobs.map(
        (j) => j.payload,
      ),
    ).toEqual(['p2']);
  });

  it('are refused by a listing of another state, group or queue', async () => {
    const q = engine.queue();
    await jobsIn(q);
    const dead = (await q.jobs({ state: 'DEAD', first: 1 })).endCursor;
    const deadOfA = (await q.jobs({ state: 'DEAD', group: 'a', first: 1 })).endCursor;
    const laneOfA = (await q.jobs({ state: 'PENDING', group: 'a', first: 1 })).endCursor;
    // Another state (before: DEAD's score, a time, read as a lane score: a wrong page).
    await refusedAsOther(q, () => q.jobs({ state: 'COMPLETED', after: dead }));
    await refusedAsOther(q, () => q.jobs({ state: 'PENDING', group: 'a', after: deadOfA }));
    // Another group, and the queue's listing against a group's.
    await refusedAsOther(q, () => q.jobs({ state: 'PENDING', group: 'b', after: laneOfA }));
    await refusedAsOther(q, () => q.jobs({ state: 'DEAD', group: 'a', after: dead }));
    await refusedAsOther(q, () => q.jobs({ state: 'DEAD', after: deadOfA }));
    // Another queue.
    const other = engine.queue();
    await refusedAsOther(other, () => other.jobs({ state: 'DEAD', after: dead }));
  });
});

describe('group cursors (Queue.groups, groupsWithPrefix, snapshot)', () => {
  it('go from groups to a snapshot of the same prefix and back; another prefix or queue refuses them', async () => {
    const q = engine.queue();
    for (const g of ['a1', 'a2', 'a3', 'b1']) await q.setLimit(g, 1);
    const page = await q.groups({ first: 1 });
    expect((await q.snapshot({ first: 1, after: page.endCursor })).page.groups[0]?.id).toBe('a2');
    const prefixed = await q.groups({ prefix: 'a', first: 1 });
    const snap = await q.snapshot({ prefix: 'a', first: 1, after: prefixed.endCursor });
    expect(snap.page.groups.map((g) => g.id)).toEqual(['a2']);
    expect(
      (await q.groups({ prefix: 'a', after: snap.page.endCursor })).groups.map((g) => g.id),
    ).toEqual(['a3']);
    await refusedAsOther(q, () => q.groups({ prefix: 'b', after: prefixed.endCursor }));
    await refusedAsOther(q, () => q.groups({ after: prefixed.endCursor }));
    await refusedAsOther(q, () => q.snapshot({ prefix: 'a', after: page.endCursor }));
    const other = engine.queue();
    await refusedAsOther(other, () => other.groups({ after: page.endCursor }));
    await refusedAsOther(other, () => other.snapshot({ after: page.endCursor }));
  });
});

describe('history cursors (Queue.history)', () => {
  it("page on within their listing; another group's, the queue's or another queue's are refused", async () => {
    const q = engine.queue();
    for (let i = 1; i <= 3; i++) {
      await q.setLimit('a', i);
      await q.setLimit('b', i);
    }
    const all = await q.history({ first: 1 });
    expect((await q.history({ first: 1, after: all.endCursor })).entries).toHaveLength(1);
    const ofA = await q.history({ group: 'a', first: 1 });
    const nextOfA = await q.history({ group: 'a', after: ofA.endCursor });
    expect(nextOfA.entries.map((e) => [e.group, e.after])).toEqual([
      ['a', expect.objectContaining({ limit: 2 })],
      ['a', expect.objectContaining({ limit: 1 })],
    ]);
    await refusedAsOther(q, () => q.history({ group: 'b', after: ofA.endCursor }));
    await refusedAsOther(q, () => q.history({ after: ofA.endCursor }));
    await refusedAsOther(q, () => q.history({ group: 'a', after: all.endCursor }));
    const other = engine.queue();
    await refusedAsOther(other, () => other.history({ after: all.endCursor }));
  });
});

describe('cursors of the form issued before they named their listing', () => {
  it('are refused with BAD_USER_INPUT, saying to start without `after`', async () => {
    const q = engine.queue();
    await jobsIn(q);
    await q.setLimit('a', 1);
    const dead = (await q.jobs({ state: 'DEAD' })).jobs[0] as Job;
    const [entry] = (await q.history({ first: 1 })).entries;
    const old = [
      () => q.jobs({ state: 'DEAD', after: b64(`j:${dead.finishedAt}:${dead.id}`) }),
      () => q.groups({ after: b64('g:a') }),
      () => q.snapshot({ after: b64('g:a') }),
      () => q.history({ after: b64(`h:${entry?.id}`) }),
    ];
    for (const run of old) {
      const before = await snapshot(q.redis);
      await expect(run()).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        argument: 'after',
        message:
          'after: is a cursor of an earlier version, which does not say what it pages: read this listing from its start, without `after`',
      });
      expect(await snapshot(q.redis)).toEqual(before);
    }
  });
});
