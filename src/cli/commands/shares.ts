/**
 * The commands of a group's share of the ring (admin, DESIGN.md §3 "Weights" and "Rate
 * limits"): `weight <group> <w>`, `rate <group> <max> --per <duration>`, `unrate <group>`; each
 * prints the group after, as the steering commands do.
 */
import { type Command, Option } from 'commander';
import { Bounds } from '../bounds.js';
import {
  CliClearRateLimitDocument,
  CliSetRateLimitDocument,
  CliSetWeightDocument,
} from '../gql/graphql.js';
import { duration, durationRange, integer, integerRange } from '../options.js';
import { durationText, visible } from '../output.js';
import { report, steerGroup } from './steering.js';
import { already } from './unchanged.js';

/** Add `weight`, `rate` and `unrate` to `program`. */
export function registerShares(program: Command): void {
  program
    .command('weight')
    .description('give a group this many turns in a row per round of the ring (1 is the default)')
    .argument('<group>', 'the group')
    .argument(
      '<weight>',
      `turns per round, ${integerRange(Bounds.weight)}`,
      integer('weight', Bounds.weight),
    )
    .action(async (group: string, weight: number, _options, command: Command) => {
      const { context, queue, before, data } = await steerGroup(
        command,
        group,
        CliSetWeightDocument,
        (queue) => ({ queue, group, weight }),
      );
      const to = before && already.weight(before, weight) ? 'already' : 'set to';
      report(
        context,
        data,
        `weight of ${visible(group)} in ${queue} ${to} ${weight}${to === 'already' ? ' (unchanged)' : ''}`,
      );
    });

  program
    .command('rate')
    .description(
      'give a group a token bucket, on top of its limit: <max> tokens refill per window, --burst held at most; a job takes its cost (1 by default)',
    )
    .argument('<group>', 'the group')
    .argument('<max>', `tokens per window, ${integerRange(Bounds.max)}`, integer('max', Bounds.max))
    .addOption(
      new Option(
        '--per <duration>',
        `the window (1s, 10m, 500ms, …; a unit is needed; ${durationRange(Bounds.per)})`,
      )
        .argParser(duration('--per', Bounds.per))
        .makeOptionMandatory(),
    )
    .addOption(
      new Option(
        '--burst <n>',
        `tokens the bucket holds at most, ${integerRange(Bounds.burst)} (default: <max>)`,
      ).argParser(integer('--burst', Bounds.burst)),
    )
    .action(
      async (
        group: string,
        max: number,
        options: { per: number; burst?: number },
        command: Command,
      ) => {
        const windowMs = options.per;
        const burst = options.burst ?? max;
        const { context, queue, before, data } = await steerGroup(
          command,
          group,
          CliSetRateLimitDocument,
          (queue) => ({ queue, group, max, windowMs, burst }),
        );
        const tokens = max === 1 ? 'token' : 'tokens';
        const rate = `${max} ${tokens} per ${durationText(windowMs)}, burst ${burst}`;
        report(
          context,
          data,
          before && already.rate(before, max, windowMs, burst)
            ? `rate of ${visible(group)} in ${queue} already ${rate} (unchanged)`
            : `rate of ${visible(group)} in ${queue} set to ${rate}`,
        );
      },
    );

  program
    .command('unrate')
    .description('remove the rate limit of a group: a rate-limited group re-joins the ring now')
    .argument('<group>', 'the group')
    .action(async (group: string, _options, command: Command) => {
      const { context, queue, before, data } = await steerGroup(
        command,
        group,
        CliClearRateLimitDocument,
        (queue) => ({ queue, group }),
      );
      report(
        context,
        data,
        before && already.unrate(before)
          ? `${visible(group)} in ${queue} had no rate limit (unchanged)`
          : `rate limit of ${visible(group)} in ${queue} removed`,
      );
    });
}
