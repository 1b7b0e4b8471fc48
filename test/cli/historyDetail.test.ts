/**
 * How `ringmaster history` words an entry's `detail` (src/cli/historyDetail.ts) and the count
 * under a page (src/cli/commands/history.ts): times as ISO dates, spans as durations, a revert
 * target as what it restores; a group's page never claims the queue's count as the group's.
 */
import { describe, expect, it } from 'vitest';
import { CLI_WORDS, countText } from '../../src/cli/commands/history.js';
import { detailLines as linesIn, detailText as textIn } from '../../src/cli/historyDetail.js';

const detailText = (action: string, detail: unknown) => textIn(action, detail, CLI_WORDS);
const detailLines = (action: string, detail: unknown, width: number) =>
  linesIn(action, detail, width, CLI_WORDS);

const UNTIL = Date.UTC(2026, 11, 1, 20, 15, 3, 466);
const SET_AT = Date.UTC(2026, 11, 1, 20, 5, 3, 466);

describe('detailText', () => {
  it("a job action's counts in a fixed order, however Redis wrote the keys", () => {
    expect(detailText('requeueDead', { skipped: 0, remaining: 0, count: 3, mode: 'all' })).toBe(
      'mode all, count 3, remaining 0, skipped 0',
    );
  });

  it('a timed call: its span and deadline', () => {
    expect(detailText('setLimit', { forMs: 600_000, until: UNTIL })).toBe(
      'for 10m, until 2026-12-01T20:15:03.466Z',
    );
  });

  it('a revert: its kind, deadline, what it restores and who set it', () => {
    expect(
      detailText('revert', {
        kind: 'pause',
        until: UNTIL,
        revertTo: false,
        setAt: SET_AT,
        setBy: 'alice',
      }),
    ).toBe(
      'kind pause, until 2026-12-01T20:15:03.466Z, reverts to running, set at 2026-12-01T20:05:03.466Z, set by alice',
    );
    expect(detailText('revert', { kind: 'limit', revertTo: null })).toBe(
      'kind limit, reverts to no limit',
    );
    expect(detailText('revert', { kind: 'limit', revertTo: 3 })).toBe('kind limit, reverts to 3');
  });

  it('a plain call that dropped a revert, and cancelOverride: the dropped override in words', () => {
    expect(
      detailText('resume', {
        cancelled: { until: UNTIL, revertTo: true, setAt: SET_AT, actor: 'bob' },
      }),
    ).toBe(
      'cancelled: until 2026-12-01T20:15:03.466Z, reverts to paused, set at 2026-12-01T20:05:03.466Z, set by bob',
    );
    expect(detailText('cancelOverride', { kind: 'limit', cancelled: {} })).toBe(
      'kind limit, cancelled none',
    );
  });

  it('job actions: mode and counts, the ids with how many more; repair: step and changes', () => {
    expect(
      detailText('requeueDead', {
        mode: 'ids',
        count: 12,
        remaining: 0,
        skipped: 1,
        ids: ['1-0', '1-1'],
        idCount: 12,
      }),
    ).toBe('mode ids, count 12, remaining 0, skipped 1, ids 1-0 1-1 (+10)');
    expect(detailText('repair', { step: 'groups', changes: 3 })).toBe('step groups, changes 3');
    expect(detailText('removeJobs', { mode: 'group', state: 'dead', ageMs: 90_000 })).toBe(
      'mode group, state dead, ageMs 1m 30s',
    );
  });

  it('in keys’ fixed order (kind, span, deadline, target, who), whatever order Redis wrote', () => {
    expect(detailText('revert', { setBy: 'a', revertTo: 2, until: UNTIL, kind: 'limit' })).toBe(
      'kind limit, until 2026-12-01T20:15:03.466Z, reverts to 2, set by a',
    );
  });

  it('as lines of a width, broken between parts, never inside one', () => {
    const lines = detailLines(
      'clearLimit',
      { cancelled: { until: UNTIL, revertTo: null, setAt: SET_AT, actor: 'alice' } },
      60,
    );
    expect(lines).toEqual([
      'cancelled: until 2026-12-01T20:15:03.466Z,',
      'reverts to no limit, set at 2026-12-01T20:05:03.466Z,',
      'set by alice',
    ]);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
  });

  it('no detail: nothing', () => {
    expect(detailText('pauseQueue', null)).toBe('');
    expect(detailText('pauseQueue', {})).toBe('');
  });
});

describe('countText', () => {
  it('the queue’s page: n of the queue’s entries', () => {
    expect(countText('q2', undefined, 1, 15)).toBe('1 of 15 entries in q2, newest first');
  });

  it('a group’s page: its entries shown, the 15 named as the queue’s (an upper bound of the group’s)', () => {
    const text = countText('q2', 'b', 1, 15);
    expect(text).toBe("1 entry of b shown, newest first (15 in q2's history, all groups)");
    expect(text).not.toMatch(/of 15 entries in b/);
  });
});
