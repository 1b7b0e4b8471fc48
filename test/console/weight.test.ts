/**
 * The console's weight input (console/src/weight.ts): 1..1,000 whole turns,
 * refused in words before anything is sent; and how a weight is shown.
 */
import { describe, expect, it } from 'vitest';
import { weightLabel, weightProblem } from '../../console/src/weight.js';

describe('weightProblem', () => {
  it('accepts whole numbers 1..1,000', () => {
    for (const text of ['1', '2', '1000', ' 7 ']) expect(weightProblem(text), text).toBeNull();
  });
  it('refuses anything else, in words', () => {
    for (const text of ['', '0', '1001', '-1', '1.5', 'abc', '1e3']) {
      expect(weightProblem(text), text).toMatch(/^A weight is /);
    }
  });
});

describe('weightLabel', () => {
  it('says turns per round', () => {
    expect(weightLabel(1)).toBe('1 turn per round');
    expect(weightLabel(1000)).toBe('1,000 turns per round');
  });
});
