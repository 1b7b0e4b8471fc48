/**
 * The queue's cap and a group's reserve as the console takes them (DESIGN.md §3, "The queue's cap
 * and reserves"): whole numbers in a limit's range, 0..1,000,000 (the API judges the rules).
 */
import { isIntegerIn, Limits } from '../../src/lanes/limits.js';

const most = Limits.maxLimit.toLocaleString('en-US');

/** Why `text` (as typed) is not a count of `what` (a cap, a reserve), in words; null when it is. */
export function countProblem(what: string, text: string): string | null {
  const value = text.trim();
  return /^\d+$/.test(value) && isIntegerIn(Number(value), 0, Limits.maxLimit)
    ? null
    : `A ${what} is a whole number of jobs in flight, from 0 to ${most}.`;
}
