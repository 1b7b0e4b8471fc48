/**
 * How the CLI prints a span of ms (`durationText`: `pause --for`, a pending revert, a rate
 * limit's window): exactly, never rounded to the second.
 */
import { describe, expect, it } from 'vitest';
import { countdown, durationText } from '../../src/cli/output.js';

describe('durationText', () => {
  it.each([
    [250, '250ms'],
    [1000, '1s'],
    [1500, '1.5s'],
    [1999, '1.999s'],
    [90_250, '1m 30.25s'],
    [600_000, '10m'],
    [5_400_000, '1h 30m'],
    [3_600_005, '1h 5ms'],
    [93_784_005, '1d 2h 3m 4.005s'],
  ])('%i ms is %s', (ms, text) => {
    expect(durationText(ms)).toBe(text);
  });
});

describe('countdown', () => {
  it('shows whole seconds, rounded up, and ms under a second', () => {
    expect(durationText(countdown(597_834))).toBe('9m 58s');
    expect(durationText(countdown(600_000))).toBe('10m');
    expect(durationText(countdown(1))).toBe('1ms');
    expect(durationText(countdown(1_001))).toBe('2s');
  });
});
