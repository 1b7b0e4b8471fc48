/**
 * The steering commands (admin, DESIGN.md §4.3): `limit <group> <n>`, `unlimit <group>`,
 * `pause <group>`, `resume <group>`; each prints the group after. `--for 10m` makes `limit` or
 * `pause` a timed override (`forMs`, DESIGN.md §4.8) that reverts on its own; a plain call drops
 * a pending revert of its kind, and `cancel <group> limit|pause` drops it keeping the value now.
 */
import { Argument, type Command } from 'commander';
import { request } from '../client.js';
import { type CliContext, contextOf } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import {
  CliCancelOverrideDocument,
  CliClearLimitDocument,
  type CliGroupFragment,
  CliPauseDocument,
  CliResumeDocument,
  CliSetLimitDocument,
} from '../gql/graphql.js';
import { duration, integer } from '../options.js';
import { durationText, printJson, printLine } from '../output.js';
import { groupFields } from './groups.js';

/** Print a mutation's answer: the data as JSON, or what was done and the group after. */
export function report(
  context: CliContext,
  data: Record<string, CliGroupFragment | null | undefined>,
  done: string,
): void {
  if (context.json) {
    printJson(data);
    return;
  }
  const group = Object.values(data)[0];
  if (!group) throw new CliError('the server answered no group', ExitCode.SERVER);
  printLine(done);
  printLine(groupFields(group));
}

/** Add the steering commands to `program`. */
export function registerSteering(program: Command): void {
  program
    .command('limit')
    .description('set the most jobs of a group that may be active at once (0 parks it)')
    .argument('<group>', 'the group')
    // Any whole number parses; the server judges the range (BAD_USER_INPUT, exit 2).
    .argument('<n>', 'the limit, 0..1,000,000', integer(0, Number.MAX_SAFE_INTEGER))
    .option(
      '--for <duration>',
      'revert on its own after this long (10m, 30s, 500ms, …; a unit is needed; up to 30d)',
      duration,
    )
    .action(async (group: string, limit: number, options: { for?: number }, command: Command) => {
      const context = contextOf(command);
      const queue = context.queue();
      const forMs = options.for ?? null;
      const data = await request(context.connection, CliSetLimitDocument, {
        queue,
        group,
        limit,
        forMs,
      });
      report(context, data, `limit of ${group} in ${queue} set to ${limit}${forText(forMs)}`);
    });

  program
    .command('unlimit')
    .description('remove the limit of a group: it is unlimited')
    .argument('<group>', 'the group')
    .action(async (group: string, _options, command: Command) => {
      const context = contextOf(command);
      const queue = context.queue();
      const data = await request(context.connection, CliClearLimitDocument, { queue, group });
      report(context, data, `limit of ${group} in ${queue} removed`);
    });

  program
    .command('pause')
    .description('stop new turns for a group; its backlog and active jobs are untouched')
    .argument('<group>', 'the group')
    .option(
      '--for <duration>',
      'resume on its own after this long (10m, 30s, 500ms, …; a unit is needed; up to 30d)',
      duration,
    )
    .action(async (group: string, options: { for?: number }, command: Command) => {
      const context = contextOf(command);
      const queue = context.queue();
      const forMs = options.for ?? null;
      const data = await request(context.connection, CliPauseDocument, { queue, group, forMs });
      report(context, data, `${group} in ${queue} paused${forText(forMs)}`);
    });

  program
    .command('resume')
    .description('unpause a group; it re-joins the ring if serviceable')
    .argument('<group>', 'the group')
    .action(async (group: string, _options, command: Command) => {
      const context = contextOf(command);
      const queue = context.queue();
      const data = await request(context.connection, CliResumeDocument, { queue, group });
      report(context, data, `${group} in ${queue} resumed`);
    });

  program
    .command('cancel')
    .description('drop the pending revert of a timed limit or pause; the value now stays')
    .argument('<group>', 'the group')
    .addArgument(new Argument('<kind>', 'which timed override').choices(['limit', 'pause']))
    .action(async (group: string, kind: 'limit' | 'pause', _options, command: Command) => {
      const context = contextOf(command);
      const queue = context.queue();
      const data = await request(context.connection, CliCancelOverrideDocument, {
        queue,
        group,
        kind: kind === 'limit' ? 'LIMIT' : 'PAUSE',
      });
      report(context, data, `timed ${kind} of ${group} in ${queue} cancelled`);
    });
}

/** ' for 10m' after a timed call's report; '' for a plain one. */
const forText = (forMs: number | null): string =>
  forMs === null ? '' : ` for ${durationText(forMs)}`;
