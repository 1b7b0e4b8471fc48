/**
 * `--for` / `--per` / `--interval` durations (src/cli/options.ts): what they read as, and for
 * what they refuse, the first thing wrong — the month hint only where M or mo was written.
 */
import { describe, expect, it } from 'vitest';
import { duration } from '../../src/cli/options.js';

const parse = duration('--for', { min: 1, max: 30 * 86_400_000 });
const refusal = (value: string): string => {
  try {
    parse(value);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`"${value}" was read as a duration`);
};

describe('duration', () => {
  it.each([
    ['1.5s', 1_500],
    ['1h30m', 5_400_000],
    ['1h 30m', 5_400_000],
    ['.5s', 500],
    ['2d', 172_800_000],
  ])('%s is %i ms', (value, ms) => {
    expect(parse(value)).toBe(ms);
  });

  it.each([
    ['1.5.5s', /"1\.5\.5" is not a number/],
    ['1h-30m', /"-" has no place in a duration/],
    ['1h,30m', /"," has no place in a duration/],
    ['1e3ms', /"e" is no unit here/],
    ['2w', /"w" is no unit here/],
    ['1S', /"S" is no unit here/],
    ['10', /needs a unit, such as 10m, 30s or 500ms, not "10"/],
    ['soon', /expected a duration such as 90s/],
  ])('%s is refused saying %s, with no month hint', (value, message) => {
    const text = refusal(value);
    expect(text).toMatch(message);
    expect(text).not.toContain('no M or mo');
  });

  it.each(['1M', '1mo', '2mon'])('%s is refused with the month hint', (value) => {
    expect(refusal(value)).toMatch(/is no unit here: .*\(no M or mo: a minute or a month\?\)/);
  });
});
