/**
 * How the CLI prints a span of ms (`durationText`: `pause --for`, a pending revert, a rate
 * limit's window): exactly, never rounded to the second; and a history entry's change, whole.
 */
import { describe, expect, it } from 'vitest';
import { changeText } from '../../src/cli/commands/history.js';
import { countdown, durationText, table } from '../../src/cli/output.js';

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
  it('shows whole seconds from 10 s, tenths under 10 s, ms under a second, always rounded up', () => {
    expect(durationText(countdown(597_834))).toBe('9m 58s');
    expect(durationText(countdown(600_000))).toBe('10m');
    expect(durationText(countdown(10_001))).toBe('11s');
    expect(durationText(countdown(1))).toBe('1ms');
    expect(durationText(countdown(999))).toBe('999ms');
    // A `--for 1.5s` read at once: 1.5s, not 2s (the fresh-user review's finding 10).
    expect(durationText(countdown(1_497))).toBe('1.5s');
    expect(durationText(countdown(1_001))).toBe('1.1s');
    expect(durationText(countdown(9_950))).toBe('10s');
  });
});

describe('a history entry’s change in its table cell', () => {
  /** The text of column `column` of a table's body rows, its lines joined without breaks. */
  const cellText = (rendered: string, column: number): string =>
    rendered
      .split('\n')
      .filter((line) => line.startsWith('│'))
      .slice(1)
      .map((line) => (line.split('│')[column + 1] ?? '').trim())
      .join('');

  it('wraps a value longer than the column, losing nothing', () => {
    const long = `${'x'.repeat(150)}-end`;
    const change = changeText({ note: 'a' }, { note: long });
    const rendered = table(['action', 'change'], [['set', change]], {
      wrap: { column: 1, width: 60 },
    });
    expect(cellText(rendered, 1)).toBe(`note a → ${long}`);
    expect(rendered).not.toContain('…');
    expect(Math.max(...rendered.split('\n').map((line) => line.length))).toBeLessThan(80);
  });

  it('lists each changed value, by path; equal sides are shown once, marked unchanged', () => {
    expect(changeText({ limit: null, paused: false }, { limit: 3, paused: false })).toBe(
      'limit null → 3',
    );
    expect(
      changeText(
        { completed: { count: 1000, ageMs: 3_600_000 }, dead: { count: 1 } },
        { completed: { count: 5, ageMs: null }, dead: { count: 1 } },
      ),
    ).toBe('completed.count 1000 → 5\ncompleted.ageMs 3600000 → null');
    expect(
      changeText({ limit: 3, paused: true, active: 0 }, { limit: 3, paused: true, active: 0 }),
    ).toBe('limit 3, paused true, active 0 (unchanged)');
    expect(changeText(null, { paused: true })).toBe('- → paused true');
  });
});
