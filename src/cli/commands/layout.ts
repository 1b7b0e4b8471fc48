/**
 * `ringmaster upgrade-layout`: convert a queue of the job layout before to this version's, in
 * place (`upgradeQueueLayout`, DESIGN.md §2 "Upgrading in place"). One call makes a bounded
 * number of steps, so the command calls again until the queue is done, one progress line a call.
 * Running it again is safe: the upgrade resumes where it stopped.
 */
import type { Command } from 'commander';
import { Bounds } from '../bounds.js';
import { request } from '../client.js';
import { contextOf } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import { CliUpgradeLayoutDocument, type CliUpgradeLayoutMutation } from '../gql/graphql.js';
import { integer, integerRange } from '../options.js';
import { printJson, printLine, shellCommand } from '../output.js';

type LayoutUpgrade = NonNullable<CliUpgradeLayoutMutation['upgradeQueueLayout']>;

/** What this run moved (a resumed run counts its own, not the runs before it). */
const payloads = (n: number): string =>
  `${n} ${n === 1 ? 'payload' : 'payloads'} moved by this run`;

/** How far the upgrade went: `ids 1–100000 of 523000 visited, 4100 payloads moved by this run`. */
const progress = (last: LayoutUpgrade, moved: number): string =>
  `ids 1–${last.visitedTo} of ${last.lastId} visited, ${payloads(moved)}`;

/** The last line: where the queue stands once done. */
function finalLine(queue: string, last: LayoutUpgrade, moved: number, calls: number): string {
  if (last.layout === null) {
    return (
      `queue ${queue} has no job ids: nothing to upgrade (its first enqueue marks its job ` +
      'layout; a queue that was never used reads so too: `ringmaster status` lists the known ones)'
    );
  }
  if (calls === 1 && last.visitedTo === 0) {
    return `queue ${queue} is of job layout ${last.layout} already`;
  }
  return `queue ${queue} is of job layout ${last.layout}: ${payloads(moved)}${repaired(last)}`;
}

/** What the closing repair changed, by kind: `; repaired RANK 7, REGISTRY 4`, or nothing. */
function repaired(last: LayoutUpgrade): string {
  const kinds = new Map<string, number>();
  for (const { kind } of last.repair?.findings ?? []) kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  if (kinds.size === 0) return '';
  return `; repaired ${[...kinds].map(([kind, n]) => `${kind} ${n}`).join(', ')}`;
}

/** Add `upgrade-layout` to `program`. */
export function registerLayout(program: Command): void {
  program
    .command('upgrade-layout')
    .description(
      'convert a queue of the job layout before (payloads in the job hashes) to this version’s, in place, without draining it; stop the previous version’s workers first. Safe to run again: it resumes where it stopped',
    )
    .option(
      '--batch <n>',
      `job ids one atomic step visits, ${integerRange(Bounds.layoutBatch)} (default: the server's)`,
      integer('--batch', Bounds.layoutBatch),
    )
    .action(async (options: { batch?: number }, command: Command) => {
      const context = contextOf(command);
      const queue = context.queue();
      // Repeating is the check: a call resumes where the last step stopped.
      const check = shellCommand(['ringmaster', 'upgrade-layout', '-q', queue]);
      let moved = 0;
      let steps = 0;
      let calls = 0;
      let last: LayoutUpgrade | null = null;
      for (;;) {
        const data = await request(
          context.connection,
          CliUpgradeLayoutDocument,
          { queue, batch: options.batch ?? null },
          check,
        ).catch((error: unknown) => {
          // The calls before the failed one were applied: say how far they went.
          if (error instanceof CliError && last !== null) {
            throw new CliError(
              `${progress(last, moved)} before this: ${error.message}`,
              error.exitCode,
            );
          }
          throw error;
        });
        const result = data.upgradeQueueLayout;
        if (!result) throw new CliError('the server answered no result', ExitCode.SERVER);
        // Each step visits ids past the last: a call that is not done yet moved the cursor on.
        if (!result.done && last !== null && result.visitedTo <= last.visitedTo) {
          throw new CliError(
            `the upgrade of ${queue} made no progress (ids visited up to ${result.visitedTo} again): run \`${check}\` again later`,
            ExitCode.SERVER,
          );
        }
        moved += result.moved;
        steps += result.steps;
        calls += 1;
        last = result;
        if (!context.json && result.visitedTo > 0) printLine(progress(result, moved));
        if (result.done) break;
      }
      if (context.json) {
        printJson({ upgradeQueueLayout: { ...last, moved, steps } });
        return;
      }
      printLine(finalLine(queue, last, moved, calls));
    });
}
