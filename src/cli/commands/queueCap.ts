/**
 * The queue's cap and the groups' reserves (admin, DESIGN.md §3 "The queue's cap and
 * reserves"): `queue-limit <n>` (`--for 10m`: a timed cap, DESIGN.md §4.8), `queue-limit none`
 * (or `--clear`), `queue-limit` alone reads the cap (in flight, reserves, a timed cap's pending
 * revert), and `reserve <group> <n>` (0 clears it), which prints the group after as the
 * steering commands do. A change that got no answer may have been applied: exit UNCONFIRMED,
 * naming the check.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { Bounds } from '../bounds.js';
import { request } from '../client.js';
import { contextOf } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import {
  CliClearQueueLimitDocument,
  CliQueueCapDocument,
  type CliQueueCapFragment,
  CliSetQueueLimitDocument,
  CliSetReserveDocument,
} from '../gql/graphql.js';
import { duration, durationRange, integer, integerRange } from '../options.js';
import {
  countdown,
  durationText,
  limitText,
  noteUnknownQueue,
  printJson,
  printLine,
  shellCommand,
  visible,
} from '../output.js';
import { report, steerGroup } from './steering.js';

/** Words that clear the cap in place of a number. */
const NO_CAP = new Set(['none', 'clear', 'off']);

/** `[limit]`: a whole number in the cap's range, or `none` (`clear`, `off`) to clear the cap. */
const capArgument = (value: string): number | null => {
  if (NO_CAP.has(value.toLowerCase())) return null;
  try {
    return integer('limit', Bounds.queueLimit)(value);
  } catch (error) {
    throw new InvalidArgumentError(`${(error as Error).message}, or none (no cap)`);
  }
};

/** The cap as one line: "cap of q set to 5 (2 in flight, reserves 1)". */
const capLine = (what: string, cap: CliQueueCapFragment): string =>
  `${what} (${cap.active} in flight${cap.reserved > 0 ? `, reserves ${cap.reserved}` : ''})`;

/**
 * `queue-limit` alone: the cap, the jobs in flight and the reserves' sum ("cap of q: 5 (2 in
 * flight, reserves 1)", "no cap on q (…)"), and a timed cap's pending revert on a line of its
 * own ("cap reverts to none in 9m 58s (<until>, set by <actor>)"); `--json` the query's answer. A
 * queue never used is noted as every read notes it.
 */
async function showCap(command: Command): Promise<void> {
  const context = contextOf(command);
  const queue = context.queue();
  const data = await request(context.connection, CliQueueCapDocument, { queue });
  if (context.json) {
    printJson(data);
    return;
  }
  const cap = data.queue;
  noteUnknownQueue(queue, cap.known);
  printLine(
    capLine(cap.limit === null ? `no cap on ${queue}` : `cap of ${queue}: ${cap.limit}`, cap),
  );
  const revert = cap.limitOverride;
  if (revert) {
    printLine(
      `cap reverts to ${limitText(revert.revertToLimit)} in ${durationText(countdown(revert.remainingMs))} (${revert.until}, set by ${visible(revert.actor)})`,
    );
  }
}

/** Add `queue-limit` and `reserve` to `program`. */
export function registerQueueCap(program: Command): void {
  program
    .command('queue-limit')
    .description(
      'cap the whole queue at this many jobs in flight (none removes the cap); nothing in flight is taken back; without a cap, show the cap',
    )
    .argument('[limit]', `the cap, ${integerRange(Bounds.queueLimit)}, or none`, capArgument)
    .option('--clear', 'remove the cap (as `queue-limit none`)')
    .addOption(
      new Option(
        '--for <duration>',
        `set the cap for this long, then go back to the cap from before (10m, 30s, …; a unit is needed; ${durationRange(Bounds.for)})`,
      ).argParser(duration('--for', Bounds.for)),
    )
    .action(
      async (
        given: number | null | undefined,
        options: { for?: number; clear?: boolean },
        command: Command,
      ) => {
        if (given === undefined && !options.clear) {
          if (options.for !== undefined) {
            throw new CliError('queue-limit --for needs a cap to set', ExitCode.USAGE);
          }
          await showCap(command);
          return;
        }
        if (options.clear && given !== undefined && given !== null) {
          throw new CliError('queue-limit: a cap and --clear together', ExitCode.USAGE);
        }
        const limit = options.clear ? null : (given as number | null);
        const context = contextOf(command);
        const queue = context.queue();
        const check = shellCommand(['ringmaster', 'status']);
        if (limit === null && options.for !== undefined) {
          throw new CliError('change --for: a cap of none cannot be timed', ExitCode.USAGE);
        }
        const data =
          limit === null
            ? await request(context.connection, CliClearQueueLimitDocument, { queue }, check)
            : await request(
                context.connection,
                CliSetQueueLimitDocument,
                { queue, limit, forMs: options.for ?? null },
                check,
              );
        if (context.json) {
          printJson(data);
          return;
        }
        const cap = 'setQueueLimit' in data ? data.setQueueLimit : data.clearQueueLimit;
        if (!cap) return;
        printLine(
          capLine(
            limit === null
              ? `cap of ${queue} removed`
              : `cap of ${queue} set to ${limit}${options.for === undefined ? '' : ` for ${durationText(options.for)}, then back`}`,
            cap,
          ),
        );
      },
    );

  program
    .command('reserve')
    .description(
      'reserve permits of the queue cap for a group: while they are scarce it gets the next one first (0 clears it)',
    )
    .argument('<group>', 'the group')
    .argument(
      '<reserve>',
      `permits reserved, ${integerRange(Bounds.reserve)}`,
      integer('reserve', Bounds.reserve),
    )
    .action(async (group: string, reserve: number, _options, command: Command) => {
      const { context, queue, before, data } = await steerGroup(
        command,
        group,
        CliSetReserveDocument,
        (queue) => ({ queue, group, reserve }),
      );
      const same = before !== null && before.reserve === reserve;
      report(
        context,
        data,
        `reserve of ${visible(group)} in ${queue} ${same ? 'already' : 'set to'} ${reserve}${same ? ' (unchanged)' : ''}`,
      );
    });
}
