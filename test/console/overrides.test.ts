/**
 * The console's words for timed overrides (console/src/overrides.ts): the durations an
 * operator types for "pause for" / "set limit for", and the sentence a pending revert reads as
 * in the group panel ("Paused for 12 more minutes, then resumes") and the queue's cap ("Cap 2 for
 * 5 more minutes, then 10").
 */
import { describe, expect, it } from 'vitest';
import {
  capOverrideText,
  moreTime,
  overrideText,
  parseDuration,
} from '../../console/src/overrides.js';

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['10m', 600_000],
    ['1h30m', 5_400_000],
    [' 2d ', 172_800_000],
    ['15', 900_000],
    ['30d', 2_592_000_000],
  ])('%s is %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'soon', '10 minutes', '1.5h', '0s', '31d', '-5m'])('%j is refused', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});

describe('overrideText', () => {
  it('says what a pending revert will do, and when', () => {
    expect(overrideText('pause', 12 * 60_000 - 500, null, false)).toBe(
      'Paused for 12 more minutes, then resumes',
    );
    expect(overrideText('pause', 3_000, null, true)).toBe(
      'Paused for 3 more seconds, then still paused (it was paused before)',
    );
    expect(overrideText('limit', 5 * 60_000, 2, 10)).toBe('Limit 2 for 5 more minutes, then 10');
    expect(overrideText('limit', 3 * 3_600_000, 0, null)).toBe(
      'Limit 0 for 3 more hours, then no limit',
    );
    expect(overrideText('limit', -20, 2, 10)).toBe(
      'Limit 2 until the next reaper pass (its deadline has passed), then 10',
    );
    expect(moreTime(1)).toBe('1 more second');
  });

  it('a pause-kind revert of a group not paused now is a timed resume', () => {
    expect(overrideText('pause', 10 * 60_000, null, true, false)).toBe(
      'Resumed for 10 more minutes, then paused again',
    );
    expect(overrideText('pause', 10 * 60_000, null, false, false)).toBe(
      'Resumed for 10 more minutes, then still resumed (it was not paused before)',
    );
  });
});

describe('capOverrideText', () => {
  it("says what the queue's timed cap reverts to, and when", () => {
    expect(capOverrideText(5 * 60_000, 2, 10)).toBe('Cap 2 for 5 more minutes, then 10');
    expect(capOverrideText(90_000, 0, null)).toBe('Cap 0 for 90 more seconds, then no cap');
    expect(capOverrideText(-1, 4, 8)).toMatch(/^Cap 4 until the next reaper pass .*, then 8$/);
  });
});
