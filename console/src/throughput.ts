/**
 * The server's throughput history as the console's chart draws it (DESIGN.md §3, "Throughput
 * history"; `components/Throughput.tsx`): per-minute counts of `Queue.throughput` as rates.
 */

/**
 * One complete minute of the server's history, as a rate: `at` is the minute's end (ms, Redis
 * clock), where a live rate over the same span would be drawn; the rates are per second.
 */
export interface HistoryRate {
  at: number;
  claimed: number;
  completed: number;
  givenBack: number;
}

/**
 * The server's minutes (`Queue.throughput`, oldest first, the last the current minute so far)
 * as rates: the complete minutes only (the current one is the live rates'), from the first
 * that had any event (a quiet hour before a queue's first job is not drawn as an hour of zeros;
 * quiet minutes after it are zeros, as counted).
 */
export function historyRates(
  points: readonly { at: string; claimed: number; completed: number; failed: number }[],
): HistoryRate[] {
  const complete = points.slice(0, -1);
  const first = complete.findIndex((p) => p.claimed + p.completed + p.failed > 0);
  if (first < 0) return [];
  return complete.slice(first).map((p) => ({
    at: Date.parse(p.at) + 60_000,
    claimed: p.claimed / 60,
    completed: p.completed / 60,
    givenBack: p.failed / 60,
  }));
}
