/**
 * `ringmaster job <id>` (one job: its state, where it stands — `Job.reason`, and while pending
 * `Job.position` and `Job.estimatedStartAt`, DESIGN.md §4.2 — priority, payload, result, progress
 * and the end of its log, or with `--log` the whole log: `Queue.job`, `Job.logs`, DESIGN.md §3
 * "Progress and logs"), `ringmaster priority <id> <priority>` (a pending or delayed job's new priority:
 * `changeJobPriority`, DESIGN.md §3 "Priorities"),
 * `ringmaster dead` (a queue's or a group's dead jobs, newest first: `Queue.jobs(DEAD)`) and
 * `ringmaster retry-dead` (requeue them: `requeueDeadJobs`, called again while jobs remain),
 * DESIGN.md §4.2, §4.3.
 */
import type { Command } from 'commander';
import { Bounds } from '../bounds.js';
import { request } from '../client.js';
import { contextOf } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import {
  CliChangeJobPriorityDocument,
  CliDeadDocument,
  CliJobDocument,
  type CliJobLogPageFragment,
  CliJobLogsDocument,
  CliRetryDeadDocument,
} from '../gql/graphql.js';
import { integer, integerRange } from '../options.js';
import { noteUnknownQueue, printJson, printLine, shellCommand, table, visible } from '../output.js';

/** The longest error message shown in a table cell (characters). */
const ERROR_WIDTH = 60;

/** The log lines `job` prints without `--log`: the newest. */
const LOG_TAIL = 20;
/** Lines a read of the log asks for: the server's largest page. */
const LOG_PAGE = Bounds.first.max;
const count = new Intl.NumberFormat('en-US');

type LogEdge = CliJobLogPageFragment['edges'][number];

/**
 * Job `id`'s whole log from its first page: the pages after it are read until the last (at most
 * 1,000 lines are kept), oldest first. The total is the last page's; a job gone meanwhile ends
 * it with what was read.
 */
async function wholeLog(
  context: ReturnType<typeof contextOf>,
  queue: string,
  id: string,
  first: CliJobLogPageFragment,
): Promise<{ edges: LogEdge[]; totalCount: number }> {
  const edges = [...first.edges];
  let page = first;
  while (page.pageInfo.hasNextPage && page.pageInfo.endCursor) {
    const data = await request(context.connection, CliJobLogsDocument, {
      queue,
      id,
      first: LOG_PAGE,
      after: page.pageInfo.endCursor,
    });
    if (!data.queue.job) break;
    page = data.queue.job.logs;
    edges.push(...page.edges);
  }
  return { edges, totalCount: page.totalCount };
}

/** A progress report: a number as a percentage, an object as indented JSON, `-` for none. */
const progressText = (progress: unknown): string =>
  typeof progress === 'number' ? `progress: ${progress}%` : jsonLines('progress', progress);

/** A job's JSON (payload or result) as indented lines under its label; `-` for none. */
function jsonLines(label: string, value: unknown): string {
  if (value === null || value === undefined) return `${label}: -`;
  // Each line marked on its own past its indent: JSON escapes control characters, so the
  // breaks and the leading spaces are its own.
  const lines = JSON.stringify(value, null, 2)
    .split('\n')
    .map((line) => {
      const indent = /^ */.exec(line)?.[0] ?? '';
      return indent + visible(line.slice(indent.length));
    });
  return `${label}:\n${lines.join('\n')}`;
}

/** Add `job`, `priority`, `dead` and `retry-dead` to `program`. */
export function registerJobs(program: Command): void {
  program
    .command('job <id>')
    .description(
      `one job: its state and where it stands (why it waits, its place and estimated start), attempts, payload, (completed) result, progress and its log's newest ${LOG_TAIL} lines`,
    )
    .option('--log', 'the whole log, oldest first (the newest 1,000 lines are kept)')
    .action(async (id: string, options: { log?: boolean }, command: Command) => {
      const context = contextOf(command);
      const queue = context.queue();
      const data = await request(
        context.connection,
        CliJobDocument,
        options.log ? { queue, id, first: LOG_PAGE } : { queue, id, last: LOG_TAIL },
      );
      const job = data.queue.job;
      const log = job
        ? options.log
          ? await wholeLog(context, queue, id, job.logs)
          : { edges: job.logs.edges, totalCount: job.logs.totalCount }
        : null;
      const shown = log ? log.edges : [];
      if (context.json) {
        printJson(
          job && log
            ? {
                queue: {
                  ...data.queue,
                  job: { ...job, logs: { totalCount: log.totalCount, edges: shown } },
                },
              }
            : data,
        );
        return;
      }
      noteUnknownQueue(queue, data.queue.known);
      if (!job || !log) {
        printLine(`no job ${visible(id)} in ${queue}`);
        return;
      }
      printLine(`job ${visible(job.id)} of ${visible(job.group)} in ${queue}: ${job.state}`);
      printLine(`reason: ${visible(job.reason)}`);
      if (job.state === 'PENDING') {
        // Where it stands (DESIGN.md §4.2): its place in its lane and the estimate, if any.
        printLine(`position: ${job.position ?? '-'} ahead of it in its lane`);
        printLine(`estimated start: ${String(job.estimatedStartAt ?? '-')}`);
      }
      printLine(`priority: ${job.priority}`);
      if (job.debounceKey != null) printLine(`debounce key: ${visible(job.debounceKey)}`);
      printLine(`attempts: ${job.attempts}/${job.maxAttempts}`);
      printLine(`enqueued: ${String(job.enqueuedAt ?? '-')}`);
      printLine(`finished: ${String(job.finishedAt ?? '-')}`);
      if (job.lastError) printLine(`last error: ${visible(job.lastError)}`);
      printLine(progressText(job.progress));
      printLine(jsonLines('payload', job.payload));
      printLine(jsonLines('result', job.result));
      if (shown.length === 0) {
        printLine('log: -');
        return;
      }
      printLine(
        `log (${count.format(shown.length)} of ${count.format(log.totalCount)} kept, oldest first):`,
      );
      // A line is a worker's text: marked as an error is, so a control cannot drive the terminal.
      for (const { node } of shown) printLine(`  ${node.at}  ${visible(node.line)}`);
      if (shown.length < log.totalCount) {
        printLine(`more: ${shellCommand(['ringmaster', 'job', id, '-q', queue, '--log'])}`);
      }
    });

  program
    .command('priority')
    .description(
      'give a pending or delayed job a new priority: a pending job moves to its new place in its lane at once; a job in another state is left as it is',
    )
    .argument('<id>', 'the job')
    .argument(
      '<priority>',
      `${integerRange(Bounds.priority)}, 1 runs first (the default is 5)`,
      integer('priority', Bounds.priority),
    )
    .action(async (id: string, priority: number, _options, command: Command) => {
      const context = contextOf(command);
      const queue = context.queue();
      const data = await request(
        context.connection,
        CliChangeJobPriorityDocument,
        { queue, id, priority },
        shellCommand(['ringmaster', 'job', id, '-q', queue]),
      );
      if (context.json) {
        printJson(data);
        return;
      }
      const job = data.changeJobPriority;
      if (!job) throw new CliError('the server answered no job', ExitCode.SERVER);
      const where = `job ${visible(job.id)} of ${visible(job.group)} in ${queue}`;
      printLine(
        job.priority === priority
          ? `${where}: priority ${priority} (${job.state})`
          : `${where} is ${job.state}: its priority stays ${job.priority} (only a PENDING or DELAYED job's changes)`,
      );
    });

  program
    .command('dead')
    .description("a queue's dead jobs (or a group's), newest first")
    .option('--group <group>', "only this group's")
    .option(
      '--first <n>',
      `how many, ${integerRange(Bounds.first)}`,
      integer('--first', Bounds.first),
      50,
    )
    .action(async (options: { group?: string; first: number }, command: Command) => {
      const context = contextOf(command);
      const queue = context.queue();
      const data = await request(context.connection, CliDeadDocument, {
        queue,
        group: options.group ?? null,
        first: options.first,
      });
      if (context.json) {
        printJson(data);
        return;
      }
      noteUnknownQueue(queue, data.queue.known);
      const { edges, totalCount } = data.queue.jobs;
      const where = options.group === undefined ? queue : `${visible(options.group)} in ${queue}`;
      if (edges.length === 0) {
        printLine(`no dead jobs in ${where}`);
        return;
      }
      printLine(
        table(
          ['job', 'group', 'attempts', 'died', 'last error'],
          edges.map(({ node }) => [
            visible(node.id),
            visible(node.group),
            `${node.attempts}/${node.maxAttempts}`,
            String(node.finishedAt ?? '-'),
            visible((node.lastError ?? '-').replace(/[\t\n\r ]+/g, ' ')),
          ]),
          { widths: { 4: ERROR_WIDTH } },
        ),
      );
      printLine(`${edges.length} of ${totalCount} dead jobs in ${where}`);
    });

  program
    .command('retry-dead')
    .description(
      'requeue dead jobs to the front of their lanes: a group’s (--group) or all (--all)',
    )
    .option('--group <group>', "this group's dead jobs")
    .option('--all', 'every dead job of the queue')
    .action(async (options: { group?: string; all?: boolean }, command: Command) => {
      const context = contextOf(command);
      const queue = context.queue();
      if ((options.group === undefined) === (options.all !== true)) {
        throw new CliError(
          'retry-dead needs exactly one of --group <group> and --all',
          ExitCode.USAGE,
        );
      }
      const selection =
        options.group === undefined
          ? { all: true, group: null }
          : { all: null, group: options.group };
      // One call handles at most 1,000 jobs: call again while some remain and the last moved any.
      const total = { count: 0, remaining: 0, skipped: 0 };
      const check = shellCommand([
        'ringmaster',
        'dead',
        '-q',
        queue,
        ...(options.group === undefined ? [] : ['--group', options.group]),
      ]);
      for (;;) {
        const data = await request(
          context.connection,
          CliRetryDeadDocument,
          { queue, ...selection },
          check,
        ).catch((error: unknown) => {
          // The calls before the failed one were applied: say what they did, whatever failed.
          if (error instanceof CliError && total.count > 0) {
            const done = `requeued ${total.count} dead ${total.count === 1 ? 'job' : 'jobs'} of ${whose(options.group, queue)} before this: `;
            throw new CliError(`${done}${error.message}`, error.exitCode);
          }
          throw error;
        });
        const result = data.requeueDeadJobs;
        if (!result) throw new CliError('the server answered no result', ExitCode.SERVER);
        total.count += result.count;
        total.skipped += result.skipped;
        total.remaining = result.remaining;
        if (result.remaining === 0 || result.count === 0) break;
      }
      if (context.json) {
        printJson({ requeueDeadJobs: total });
        return;
      }
      printLine(
        `requeued ${total.count} dead ${total.count === 1 ? 'job' : 'jobs'} of ${whose(options.group, queue)} (${total.remaining} remaining, ${total.skipped} skipped)`,
      );
    });
}

/** Whose dead jobs: `g in q` for a group's, `q` for the queue's. */
const whose = (group: string | undefined, queue: string): string =>
  group === undefined ? queue : `${visible(group)} in ${queue}`;
