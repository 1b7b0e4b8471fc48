/**
 * A job subscriber's render (src/pubsub/jobWatch.ts `jobRender`, DESIGN.md §4.4 "Job events"),
 * without Redis: what it sends for each read of the hash and the event list — the entries it
 * has not seen, in order, and the hash only when it is not older than them.
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/lanes/index.js';
import { decodeMoments, type JobTimeline, jobRender } from '../../src/pubsub/jobWatch.js';

const known: Job = {
  id: '1',
  queue: 'q',
  group: 'g',
  payload: { n: 1 },
  result: null,
  progress: null,
  state: 'PENDING',
  attempts: 0,
  maxAttempts: 3,
  token: null,
  leaseUntil: null,
  enqueuedAt: 1_000,
  runAt: null,
  claimedAt: null,
  finishedAt: null,
  lastError: null,
  backoff: null,
  errors: [],
};

const active = (attempts: number, leaseUntil = 9_000): Job => ({
  ...known,
  state: 'ACTIVE',
  attempts,
  claimedAt: 2_000 + attempts,
  leaseUntil,
});

function entry(seq: number, fields: Record<string, string> | 'gone'): string {
  if (fields === 'gone') return JSON.stringify({ seq: String(seq), at: 5_000, gone: true });
  return JSON.stringify({ seq: String(seq), at: 5_000, ...fields });
}

const ACTIVE1 = { state: 'active', attempts: '1', claimedAt: '2001', leaseUntil: '9000' };
const PENDING1 = { state: 'pending', attempts: '1' };
const ACTIVE2 = { state: 'active', attempts: '2', claimedAt: '2002', leaseUntil: '9000' };
const DONE = { state: 'completed', attempts: '2', claimedAt: '2002', finishedAt: '3000' };

function timeline(job: Job | null, entries: string[]): JobTimeline {
  return { job, moments: decodeMoments(entries, known) };
}

const states = (events: (Job | null)[] | undefined) =>
  events?.map((e) => (e === null ? null : `${e.state}:${e.attempts}`));

describe('jobRender', () => {
  it('first the hash, then the entries written after the point it shows', () => {
    const render = jobRender();
    const read = timeline(active(1), [entry(10, ACTIVE1), entry(11, PENDING1)]);
    expect(states(render(read, undefined, false))).toEqual(['ACTIVE:1', 'PENDING:1']);
  });

  it('each unseen entry in order; the hash skipped while older than them, sent when newer', () => {
    const render = jobRender();
    render(timeline(known, []), undefined, false);
    // The hash was read before the claim and the retry: only the entries tell.
    const early = timeline(known, [entry(10, ACTIVE1), entry(11, PENDING1), entry(12, ACTIVE2)]);
    expect(states(render(early, undefined, false))).toEqual(['ACTIVE:1', 'PENDING:1', 'ACTIVE:2']);
    // The same point, its lease extended since (no state change, no entry): the hash.
    const extended = timeline(active(2, 20_000), [entry(12, ACTIVE2)]);
    const sent = render(extended, undefined, false);
    expect(sent?.map((e) => e?.leaseUntil)).toEqual([20_000]);
    // Nothing new: nothing sent; forced (a resync): the hash again.
    expect(render(extended, undefined, false)).toBeUndefined();
    expect(states(render(extended, undefined, true))).toEqual(['ACTIVE:2']);
  });

  it("each progress report of one attempt is its own event, with that moment's progress", () => {
    const render = jobRender();
    render(timeline(active(1), [entry(10, ACTIVE1)]), undefined, false);
    const reports = [
      entry(10, ACTIVE1),
      entry(11, { ...ACTIVE1, progress: '40' }),
      entry(12, { ...ACTIVE1, progress: '{"stage":"b"}' }),
    ];
    const hash = { ...active(1), progress: { stage: 'b' } };
    const sent = render(timeline(hash, reports), undefined, false);
    expect(sent?.map((e) => e?.progress)).toEqual([40, { stage: 'b' }]);
    // Read again, unchanged: nothing (an object equal to the last sent is the same progress).
    expect(render(timeline({ ...hash, progress: { stage: 'b' } }, reports), undefined, false)).toBe(
      undefined,
    );
  });

  it('stops at the first final event', () => {
    const render = jobRender();
    render(timeline(known, []), undefined, false);
    const read = timeline(null, [entry(10, ACTIVE1), entry(11, DONE), entry(12, 'gone')]);
    expect(states(render(read, undefined, false))).toEqual(['ACTIVE:1', 'COMPLETED:2']);
  });

  it('an entry that is not one (not JSON, no seq) is left out', () => {
    const moments = decodeMoments(['x', 'null', '{"state":"active"}', entry(3, ACTIVE1)], known);
    expect(moments.map((m) => m.seq)).toEqual([3]);
  });
});
