/**
 * How the console says a job's priority (console/src/priority.ts, DESIGN.md §3 "Priorities"): the
 * ends of the range in words, the rest as the number.
 */
import { describe, expect, it } from 'vitest';
import { priorityText } from '../../console/src/priority.js';

describe('priorityText', () => {
  it('says which end runs first and which last', () => {
    expect(priorityText(1)).toBe('1 (runs first)');
    expect(priorityText(9)).toBe('9 (runs last)');
    expect([2, 5, 8].map(priorityText)).toEqual(['2', '5', '8']);
  });
});
