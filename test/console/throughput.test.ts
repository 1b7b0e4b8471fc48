/**
 * The console's reading of the server's throughput history (console/src/throughput.ts): the
 * complete minutes of `Queue.throughput` as per-second rates, each at its minute's end, from the
 * first minute that had any event; the current minute is left to the live rates.
 */
import { describe, expect, it } from 'vitest';
import { historyRates } from '../../console/src/throughput.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 11, 7, 12, 0);
const point = (i: number, claimed: number, completed: number, failed: number) => ({
  at: new Date(T0 + i * MINUTE).toISOString(),
  claimed,
  completed,
  failed,
});

describe('historyRates', () => {
  it('draws each complete minute from the first busy one, as rates at the minute’s end', () => {
    const points = [
      point(0, 0, 0, 0),
      point(1, 0, 0, 0),
      point(2, 120, 60, 6),
      point(3, 0, 0, 0),
      point(4, 30, 30, 0),
      point(5, 600, 600, 600), // the current minute, so far: the live rates'
    ];
    expect(historyRates(points)).toEqual([
      { at: T0 + 3 * MINUTE, claimed: 2, completed: 1, givenBack: 0.1 },
      { at: T0 + 4 * MINUTE, claimed: 0, completed: 0, givenBack: 0 },
      { at: T0 + 5 * MINUTE, claimed: 0.5, completed: 0.5, givenBack: 0 },
    ]);
  });

  it('draws nothing for an hour with no event before the current minute', () => {
    expect(historyRates([point(0, 0, 0, 0), point(1, 0, 0, 0), point(2, 5, 5, 5)])).toEqual([]);
    expect(historyRates([])).toEqual([]);
  });

  it('a minute with only failures is busy', () => {
    expect(historyRates([point(0, 0, 0, 3), point(1, 0, 0, 0)])).toEqual([
      { at: T0 + MINUTE, claimed: 0, completed: 0, givenBack: 0.05 },
    ]);
  });
});
