/**
 * The History panel's words for an entry's `detail` (src/cli/historyDetail.ts, which the
 * console shares with the CLI, in the panel's words and ` · ` between parts): dates and
 * durations, never raw epoch ms or JSON (`until 1796154388466`, `cancelled {"setAt":…}`).
 */
import { describe, expect, it } from 'vitest';
import { detailText as wordsOf } from '../../src/cli/historyDetail.js';

/** The panel's formatters stood in for: a date as ISO, a span in s. */
const dateTimeMs = (ms: number): string => new Date(ms).toISOString();
const detailText = (action: string, detail: unknown): string =>
  wordsOf(action, detail, { date: dateTimeMs, span: (ms) => `${ms / 1000} s` }, ' · ');

const UNTIL = 1_796_154_388_466;
const SET_AT = UNTIL - 600_000;

describe('detailText', () => {
  it('a timed call: its span in words and its deadline as a date', () => {
    expect(detailText('setLimit', { forMs: 600_000, until: UNTIL })).toBe(
      `for 600 s · until ${dateTimeMs(UNTIL)}`,
    );
  });

  it('a dropped override and a revert: dates, the target in words, who set it', () => {
    const text = detailText('resume', {
      cancelled: { until: UNTIL, revertTo: true, setAt: SET_AT, actor: 'bob' },
    });
    expect(text).toBe(
      `cancelled: until ${dateTimeMs(UNTIL)} · reverts to paused · set at ${dateTimeMs(SET_AT)} · set by bob`,
    );
    expect(text).not.toMatch(/\d{13}|[{}"]/);
    expect(detailText('revert', { setBy: 'alice', revertTo: null, kind: 'limit' })).toBe(
      'kind limit · reverts to no limit · set by alice',
    );
  });

  it('job actions: counts, then the ids with how many more', () => {
    expect(
      detailText('removeJobs', { mode: 'ids', count: 12, ids: ['1-0', '1-1'], idCount: 12 }),
    ).toBe('mode ids · count 12 · ids 1-0 1-1 (+10)');
  });
});
