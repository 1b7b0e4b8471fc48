/** A group's weight as the console takes it (DESIGN.md §3, "Weights"): 1..1,000 turns per round. */
import { isIntegerIn, Limits } from '../../src/lanes/limits.js';

/** The most turns per round. */
export const MAX_WEIGHT = Limits.maxWeight;
const most = MAX_WEIGHT.toLocaleString('en-US');

/** Why `text` (as typed) is not a weight, in words; null when it is one. */
export function weightProblem(text: string): string | null {
  if (!/^\d+$/.test(text.trim())) return `A weight is a whole number of turns, from 1 to ${most}.`;
  return isIntegerIn(Number(text.trim()), 1, MAX_WEIGHT)
    ? null
    : `A weight is from 1 to ${most} turns per round.`;
}

/** How the detail shows a weight. */
export const weightLabel = (weight: number): string =>
  weight === 1 ? '1 turn per round' : `${weight.toLocaleString('en-US')} turns per round`;
