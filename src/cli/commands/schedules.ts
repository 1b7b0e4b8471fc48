/**
 * Schedules (DESIGN.md §3, "Schedules"): `schedules` lists a queue's schedules (next run, last
 * run and job); `schedule set <id> <group> --every <duration> | --every-ms <ms> | --cron <expr> [--timezone]
 * [--payload <json>] [--max-attempts] [--priority]` creates or replaces one (admin), and
 * `schedule remove <id>` removes it (admin). A change that got no answer may have been applied:
 * exit UNCONFIRMED, naming `ringmaster schedules` as the check. To pause a schedule, pause its
 * group (`ringmaster pause <group>`): its ticks' jobs wait in the group's lane.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { Bounds } from '../bounds.js';
import { request } from '../client.js';
import { contextOf } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import {
  CliRemoveScheduleDocument,
  type CliScheduleFragment,
  CliSchedulesDocument,
  type CliSchedulesQuery,
  CliUpsertScheduleDocument,
} from '../gql/graphql.js';
import { duration, durationRange, integer, integerRange } from '../options.js';
import {
  durationText,
  noteUnknownQueue,
  printJson,
  printLine,
  shellCommand,
  table,
  visible,
} from '../output.js';

/** The largest page the API serves (DESIGN.md §5, `first`). */
const PAGE = Bounds.first.max;

/** `--payload`: JSON text, parsed here so a typo is a usage error before anything is sent. */
function jsonArgument(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new InvalidArgumentError(`expected JSON (e.g. '{"report":"daily"}'), not ${value}`);
  }
}

/** When a schedule ticks, in words: "every 5m" or the cron with its zone. */
const timingText = (s: CliScheduleFragment): string =>
  s.everyMs != null
    ? `every ${durationText(s.everyMs)}`
    : `cron ${s.cron ?? ''}${s.timezone ? ` (${s.timezone})` : ' (UTC)'}`;

/** Add `schedules` and `schedule set|remove` to `program`. */
export function registerSchedules(program: Command): void {
  program
    .command('schedules')
    .description("a queue's schedules by id: when each ticks, its next run, its last run and job")
    .action(async (_options, command: Command) => {
      const context = contextOf(command);
      const queue = context.queue();
      const found: CliScheduleFragment[] = [];
      const unreadable: string[] = [];
      let after: string | null = null;
      let known = true;
      let total = 0;
      for (;;) {
        const data: CliSchedulesQuery = await request(context.connection, CliSchedulesDocument, {
          queue,
          first: PAGE,
          after,
        });
        known = data.queue.known;
        total = data.queue.schedules.totalCount;
        found.push(...data.queue.schedules.edges.map((e) => e.node));
        unreadable.push(...data.queue.schedules.unreadable);
        if (!data.queue.schedules.pageInfo.hasNextPage) break;
        after = data.queue.schedules.pageInfo.endCursor ?? null;
      }
      if (context.json) {
        printJson({ queue, totalCount: total, schedules: found, unreadable });
        return;
      }
      noteUnknownQueue(queue, known);
      if (unreadable.length > 0) {
        printLine(
          `unreadable (another writer's definition, not listed; the audit reports them): ${unreadable.map(visible).join(', ')}`,
        );
      }
      if (found.length === 0) {
        printLine(`no schedules in ${queue}`);
        return;
      }
      printLine(
        table(
          ['id', 'group', 'ticks', 'next run', 'last run', 'last job'],
          found.map((s) => [
            visible(s.id),
            visible(s.group),
            timingText(s),
            s.nextRunAt ?? '-',
            s.lastRunAt ?? '-',
            s.lastJobId ?? '-',
          ]),
        ),
      );
    });

  const schedule = program
    .command('schedule')
    .description('create, replace or remove a schedule: a job enqueued into a group on every tick');

  schedule
    .command('set')
    .description(
      'create or replace a schedule: give one of --every and --cron; a replaced schedule whose timing is unchanged keeps its next run',
    )
    .argument('<id>', 'the schedule’s id')
    .argument('[group]', 'the group each tick’s job goes to (or --group)')
    .option('--group <group>', 'the group each tick’s job goes to (as the second argument)')
    .addOption(
      new Option(
        '--every <duration>',
        `tick every duration from now (90s, 10m, 1h, …; ${durationRange(Bounds.every)})`,
      ).argParser(duration('--every', Bounds.every)),
    )
    .addOption(
      new Option(
        '--every-ms <ms>',
        `as --every, in whole ms (${integerRange(Bounds.every)})`,
      ).argParser(integer('--every-ms', Bounds.every)),
    )
    .option(
      '--cron <expression>',
      "a cron expression: 5 fields, or 6 with seconds first ('0 30 2 * * *')",
    )
    .option('--timezone <zone>', 'the IANA time zone of --cron (default UTC): Europe/Berlin, …')
    .option('--payload <json>', 'each job’s payload, JSON', jsonArgument)
    .addOption(
      new Option(
        '--max-attempts <n>',
        `each job’s attempts, ${integerRange(Bounds.maxAttempts)} (default 3)`,
      ).argParser(integer('--max-attempts', Bounds.maxAttempts)),
    )
    .addOption(
      new Option(
        '--priority <n>',
        `each job’s priority, ${integerRange(Bounds.priority)} (1 runs first; default 5)`,
      ).argParser(integer('--priority', Bounds.priority)),
    )
    .action(
      async (
        id: string,
        given: string | undefined,
        options: {
          group?: string;
          every?: number;
          everyMs?: number;
          cron?: string;
          timezone?: string;
          payload?: unknown;
          maxAttempts?: number;
          priority?: number;
        },
        command: Command,
      ) => {
        if (given !== undefined && options.group !== undefined && given !== options.group) {
          throw new CliError('schedule set: two groups (an argument and --group)', ExitCode.USAGE);
        }
        const group = given ?? options.group;
        if (group === undefined) {
          throw new CliError('schedule set needs a group (an argument or --group)', ExitCode.USAGE);
        }
        if (options.every !== undefined && options.everyMs !== undefined) {
          throw new CliError('schedule set: --every and --every-ms together', ExitCode.USAGE);
        }
        const every = options.every ?? options.everyMs;
        if (every !== undefined && options.cron !== undefined) {
          throw new CliError(
            'schedule set: --every and --cron together (a schedule has one of them)',
            ExitCode.USAGE,
          );
        }
        if (every === undefined && options.cron === undefined) {
          throw new CliError('schedule set needs one of --every and --cron', ExitCode.USAGE);
        }
        if (options.timezone !== undefined && options.cron === undefined) {
          throw new CliError('schedule set: --timezone applies only to --cron', ExitCode.USAGE);
        }
        const context = contextOf(command);
        const queue = context.queue();
        const data = await request(
          context.connection,
          CliUpsertScheduleDocument,
          {
            queue,
            id,
            group,
            everyMs: every ?? null,
            cron: options.cron ?? null,
            timezone: options.timezone ?? null,
            payload: options.payload ?? null,
            maxAttempts: options.maxAttempts ?? null,
            priority: options.priority ?? null,
          },
          shellCommand(['ringmaster', 'schedules', '-q', queue]),
        );
        if (context.json) {
          printJson(data);
          return;
        }
        const s = data.upsertSchedule;
        if (!s) return;
        printLine(
          `schedule ${visible(s.id)} of ${queue} set: ${timingText(s)} into ${visible(s.group)}, next run ${s.nextRunAt ?? 'never'}`,
        );
      },
    );

  schedule
    .command('remove')
    .description('remove a schedule: no tick of it fires after this; its jobs stay')
    .argument('<id>', 'the schedule’s id')
    .action(async (id: string, _options, command: Command) => {
      const context = contextOf(command);
      const queue = context.queue();
      const data = await request(
        context.connection,
        CliRemoveScheduleDocument,
        { queue, id },
        shellCommand(['ringmaster', 'schedules', '-q', queue]),
      );
      if (context.json) {
        printJson(data);
        return;
      }
      printLine(
        data.removeSchedule
          ? `schedule ${visible(id)} of ${queue} removed`
          : `no schedule ${visible(id)} in ${queue} (nothing removed)`,
      );
    });
}
