/**
 * Backlog bounds (admin, DESIGN.md §3 "Backlog bounds"): `max-pending -g <group> <n>` bounds a
 * group's pending + delayed jobs (an enqueue past it is refused, GROUP_FULL), `--default` the
 * queue's default for every group without its own; `none` (or `--clear`) clears it. A group's
 * change prints the group after, as the steering commands do. A change that got no answer may
 * have been applied: exit UNCONFIRMED, naming the check.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { Bounds } from '../bounds.js';
import { request } from '../client.js';
import { contextOf } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import { CliSetDefaultMaxPendingDocument, CliSetMaxPendingDocument } from '../gql/graphql.js';
import { integer, integerRange } from '../options.js';
import { printJson, printLine, shellCommand, visible } from '../output.js';
import { report, steerGroup } from './steering.js';

/** Words that clear the bound in place of a number. */
const NO_BOUND = new Set(['none', 'clear', 'off']);

/** `[n]`: a whole number in a bound's range, or `none` (`clear`, `off`) to clear it. */
const boundArgument = (value: string): number | null => {
  if (NO_BOUND.has(value.toLowerCase())) return null;
  try {
    return integer('maxPending', Bounds.maxPending)(value);
  } catch (error) {
    throw new InvalidArgumentError(`${(error as Error).message}, or none (no bound)`);
  }
};

const boundText = (n: number | null | undefined): string =>
  n === null || n === undefined ? 'none' : String(n);

/** Add `max-pending` to `program`. */
export function registerMaxPending(program: Command): void {
  program
    .command('max-pending')
    .description(
      'bound a group’s backlog (pending + delayed jobs): an enqueue past it is refused (GROUP_FULL); --default for every group without its own; none clears it',
    )
    .argument('[n]', `the bound, ${integerRange(Bounds.maxPending)}, or none`, boundArgument)
    .option('-g, --group <group>', 'the group to bound')
    .option('--default', 'the queue’s default bound, for every group without its own')
    .option('--clear', 'remove the bound (as `max-pending none`)')
    .action(
      async (
        given: number | null | undefined,
        options: { group?: string; default?: boolean; clear?: boolean },
        command: Command,
      ) => {
        if ((options.group === undefined) === (options.default !== true)) {
          throw new CliError(
            'max-pending needs -g <group> or --default (one of them)',
            ExitCode.USAGE,
          );
        }
        if (given === undefined && !options.clear) {
          throw new CliError('max-pending needs a bound, or none (or --clear)', ExitCode.USAGE);
        }
        if (options.clear && given !== undefined && given !== null) {
          throw new CliError('max-pending: a bound and --clear together', ExitCode.USAGE);
        }
        const maxPending = options.clear ? null : (given as number | null);
        const group = options.group;
        if (group !== undefined) {
          const { context, queue, before, data } = await steerGroup(
            command,
            group,
            CliSetMaxPendingDocument,
            (queue) => ({ queue, group, maxPending }),
          );
          const same = before !== null && (before.maxPending ?? null) === maxPending;
          report(
            context,
            data,
            `backlog bound of ${visible(group)} in ${queue} ${same ? 'already' : maxPending === null ? 'cleared' : 'set to'}${maxPending === null && !same ? '' : ` ${boundText(maxPending)}`}${same ? ' (unchanged)' : ''}`,
          );
          return;
        }
        const context = contextOf(command);
        const queue = context.queue();
        const data = await request(
          context.connection,
          CliSetDefaultMaxPendingDocument,
          { queue, maxPending },
          shellCommand(['ringmaster', 'status', '-q', queue]),
        );
        if (context.json) {
          printJson(data);
          return;
        }
        printLine(
          `default backlog bound of ${queue} ${maxPending === null ? 'cleared' : `set to ${maxPending}`}`,
        );
      },
    );
}
