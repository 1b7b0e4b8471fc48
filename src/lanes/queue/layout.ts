/**
 * The job-layout check (DESIGN.md §2, "Job layout"): whether a queue's jobs are of this
 * version's layout, asked once per queue and connection before the first enqueue or claim
 * (`QueueCore.laidOut`, redis/connection.ts `laidOut`). The in-place upgrade of a queue of the
 * layout before is `upgrade.ts`.
 */
import { ErrorCode, RingmasterError } from '../errors.js';
import { JOB_LAYOUT } from '../keys.js';
import type { Commands } from '../scripts/commands.js';

/** The `layout` mark of a queue whose in-place upgrade has begun and not ended. */
export const UPGRADING = 'upgrading';

/** How to upgrade queue `queue` in place, for the messages that refuse one of another layout. */
const howToUpgrade = (queue: string): string =>
  'upgrade it in place once the previous version has stopped claiming there: ' +
  `\`ringmaster upgrade-layout -q ${queue}\`, the upgradeQueueLayout mutation or Queue.upgradeLayout`;

/**
 * Refuse a queue whose jobs are of another job layout (DESIGN.md §2, "Job layout"): asked once
 * per queue and connection by `QueueCore.laidOut`, before the first enqueue or claim. An empty
 * queue without a mark is marked as this layout (`checkLayout-9.lua`). Answers whether the
 * queue is marked (a queue that never minted an id is not, and is asked again next time).
 * @param queue the queue's name, `settings` its `P:{Q}:settings` key (both named in the error)
 * @throws RingmasterError LAYOUT_MISMATCH, in one line saying what to do
 */
export async function askLayout(
  commands: Commands,
  queue: string,
  settings: string,
): Promise<boolean> {
  const [status, found, ...counts] = await commands.checkLayout({ layout: JOB_LAYOUT });
  if (status === 0) return found === JOB_LAYOUT;
  if (status === 1 && found === UPGRADING) {
    throw new RingmasterError(
      ErrorCode.LAYOUT_MISMATCH,
      `queue ${queue} is part way through an in-place upgrade to job layout ${JOB_LAYOUT} ` +
        `(${settings} layout is ${UPGRADING}), so this version neither enqueues nor claims there ` +
        `yet: finish it with \`ringmaster upgrade-layout -q ${queue}\`, the upgradeQueueLayout mutation or ` +
        'Queue.upgradeLayout (it resumes where it stopped)',
    );
  }
  if (status === 1) {
    throw new RingmasterError(
      ErrorCode.LAYOUT_MISMATCH,
      `queue ${queue} is marked with job layout ${found} (${settings} layout), not ` +
        `this version's ${JOB_LAYOUT}: run the version of Ringmaster that wrote it, or use another queue`,
    );
  }
  const whatToDo =
    'which this version would run without their payloads, so it refuses to enqueue or claim ' +
    `there: ${howToUpgrade(queue)}`;
  if (status === 3) {
    const [ring, active, delayed, gactive] = counts;
    throw new RingmasterError(
      ErrorCode.LAYOUT_MISMATCH,
      `queue ${queue} has no job layout mark and its totals count no job, yet it holds ` +
        `jobs (${ring} groups on the ring, ${active} active, ${delayed} delayed, ${gactive} ` +
        `groups with active jobs): jobs written ` +
        `by an older Ringmaster or by another program, ${whatToDo}`,
    );
  }
  const [pending, delayed, active, completed, dead] = counts;
  throw new RingmasterError(
    ErrorCode.LAYOUT_MISMATCH,
    `queue ${queue} holds jobs of an older job layout (payloads in the job ` +
      `hashes: ${pending} pending, ${delayed} delayed, ${active} active, ${completed} completed, ` +
      `${dead} dead), ${whatToDo}`,
  );
}
