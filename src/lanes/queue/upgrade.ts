/**
 * The in-place upgrade of a queue of the job layout before to this one (DESIGN.md §2,
 * "Upgrading in place"): the steps of `upgradeLayout-2.lua` until the queue is marked.
 */
import { ErrorCode, RingmasterError } from '../errors.js';
import { JOB_LAYOUT, type QueueKeys } from '../keys.js';
import type { Commands } from '../scripts/commands.js';
import type { ReconcileReport } from './reconcile.js';

/** What {@link upgradeLayout} did (DESIGN.md §2, "Upgrading in place"). */
export interface LayoutUpgrade {
  /**
   * Whether the queue is of this version's layout now, so enqueue and claim work there; also
   * true for a queue that never minted an id (nothing to convert: left unmarked, its first
   * enqueue marks it).
   */
  readonly done: boolean;
  /**
   * The queue's `layout` mark after the call: '2' once done, 'upgrading' while ids are left to
   * visit, null for a queue that never minted an id.
   */
  readonly layout: string | null;
  /** Payloads this call moved from job hashes into the queue's `payloads` hash. */
  readonly moved: number;
  /**
   * The last job id the call visited (every id up to it is converted), 0 when it visited none
   * (the queue was already of this layout, or never minted an id).
   */
  readonly visitedTo: number;
  /** The queue's last minted job id (`seq`), as the last step read it; 0 when none was read. */
  readonly lastId: number;
  /** Atomic steps (script calls) the call made. */
  readonly steps: number;
  /**
   * What the repair run once the queue is of this layout changed (`Queue.repair`: the indexes
   * this version keeps that the version before did not, such as the rankings); null while the
   * upgrade is not done, or for a queue that never minted an id.
   */
  readonly repair: ReconcileReport | null;
}

/** `Queue.upgradeLayout`'s options (DESIGN.md §2, "Upgrading in place"). */
export interface LayoutUpgradeOptions {
  /** Job ids one atomic step visits, 1..10,000 (default 500: a few ms of Redis a step). */
  readonly batch?: number;
  /** Steps this call makes at most, 1..1,000,000 (default: until done); call again to resume. */
  readonly maxSteps?: number;
  /** Who asks, for the history entries of the repair that ends the upgrade. */
  readonly actor?: string;
}

/**
 * Convert queue `queue` from the job layout before to this one in place (DESIGN.md §2,
 * "Upgrading in place"): atomic steps of at most `batch` job ids each, from the stored cursor,
 * until the queue is marked or `maxSteps` steps are made (then call again: it resumes).
 * @param keys its `settings` and `seq` keys, named in the errors
 * @throws RingmasterError LAYOUT_MISMATCH when the queue is marked with another layout, and
 *   DATA_OUT_OF_RANGE when its `seq` is not a non-negative integer; nothing written by either
 */
export async function upgradeLayout(
  commands: Commands,
  queue: string,
  keys: Pick<QueueKeys, 'settings' | 'seq'>,
  p: { batch: number; maxSteps: number },
): Promise<LayoutUpgrade> {
  let moved = 0;
  let steps = 0;
  for (;;) {
    const [status, mark, movedNow, visitedTo, lastId] = await commands.upgradeLayout({
      layout: JOB_LAYOUT,
      batch: p.batch,
    });
    if (status === 1) {
      throw new RingmasterError(
        ErrorCode.LAYOUT_MISMATCH,
        `queue ${queue} is marked with job layout ${mark} (${keys.settings} layout), not this ` +
          `version's ${JOB_LAYOUT} nor the one before it, so this version cannot upgrade it: run ` +
          'the version of Ringmaster that wrote it, or use another queue',
      );
    }
    if (status === 3) {
      throw new RingmasterError(
        ErrorCode.DATA_OUT_OF_RANGE,
        `queue ${queue}'s job id counter (${keys.seq}) holds ` +
          `${JSON.stringify(mark)}, not a non-negative integer, so its job ids cannot be ` +
          'visited; nothing was changed. Set it to the highest job id the queue holds',
      );
    }
    moved += movedNow;
    steps += 1;
    if (status === 0 || steps >= p.maxSteps) {
      return { done: status === 0, layout: mark, moved, visitedTo, lastId, steps, repair: null };
    }
  }
}
