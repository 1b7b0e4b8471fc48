/**
 * `ringmaster status`: the server's readiness (GET /ready: Redis, the live feed's mode) and
 * every queue with its state and counts (`Query.queues`, DESIGN.md §4.2). Not ready: the same
 * report (what /ready said, even when no queue can be read: Redis down, or frozen so that the
 * queues query gets no answer within --timeout), then exit SERVER (5). Exit UNREACHABLE (4)
 * only when /ready itself got no answer.
 * A query refused for auth: the readiness line (GET /ready needs no token), then exit AUTH (3).
 */
import type { Command } from 'commander';
import pc from 'picocolors';
import { type Readiness, readiness, requestPartial } from '../client.js';
import { contextOf } from '../context.js';
import { CliError, ExitCode, SlowAnswerError } from '../errors.js';
import { CliStatusDocument, type CliStatusQuery } from '../gql/graphql.js';
import { printJson, printLine, table } from '../output.js';

const HEAD = [
  'queue',
  'state',
  'groups',
  'on ring',
  'paused',
  'saturated',
  'pending',
  'delayed',
  'active',
  'dead',
  'completed',
];

/**
 * Whether a not-ready `/ready` explains the queue query's `error`: a server error, or no answer
 * within --timeout ({@link SlowAnswerError}: the server answered /ready, its Redis is what is
 * slow). Not a connection that failed or dropped: that stays UNREACHABLE.
 */
const explainedByNotReady = (error: CliError): boolean =>
  error.exitCode === ExitCode.SERVER || error instanceof SlowAnswerError;

/** Add `status` to `program`. */
export function registerStatus(program: Command): void {
  program
    .command('status')
    .description("the server's readiness and feed mode, and every queue with its counts")
    .action(async (_options, command: Command) => {
      const context = contextOf(command);
      const ready = await readiness(context.connection);
      // A queue that cannot be read (its cluster master down) is null beside the others: the
      // rest is shown, then the command ends with that error's code.
      const { data, error } = await requestPartial(context.connection, CliStatusDocument, {}).catch(
        (failure: unknown) => {
          // No queue could be read (Redis down, no token): what /ready said is still worth
          // showing — it needs no token and names what is down.
          if (!(failure instanceof CliError)) throw failure;
          return { data: null, error: failure };
        },
      );
      // Not ready explains a server error, and a query the server then left unanswered within
      // --timeout (a frozen Redis: /ready answered 503 within its PING bound, the query waits on
      // Redis): the server answered, so it is the server's state, exit SERVER, not UNREACHABLE.
      // One to fix here (a token, --url) comes first.
      const last =
        !ready.ready && (error === null || explainedByNotReady(error))
          ? notReady(context.connection.url, ready)
          : error;
      if (context.json) printJson({ ready, ...(data ?? { queues: null }) });
      else show(context.connection.url, ready, data, error === last ? null : error);
      if (last) throw last;
    });
}

/**
 * The error `status` ends with, after its report, when `/ready` says not ready (503: Redis
 * down, the subscriber lost, an eviction policy other than noeviction): exit SERVER, so that a
 * script sees it (docs/cli.md, exit codes). Names what /ready reported.
 */
function notReady(url: string, ready: Readiness): CliError {
  const said = [
    `redis ${ready.redis ?? 'unknown'}`,
    `subscriber ${ready.subscriber ?? 'unknown'}`,
    `eviction ${ready.eviction ?? 'unknown'}`,
  ].join(', ');
  return new CliError(
    `${new URL('/ready', url).href} says the server is not ready (${said})`,
    ExitCode.SERVER,
  );
}

/**
 * Print the readiness line and the table of queues; when no queue could be read (`data` null),
 * a line saying so in place of the table, with `unsaid`: the reason, unless the command ends
 * with it (null) on stderr.
 */
function show(
  url: string,
  ready: Readiness,
  data: CliStatusQuery | null,
  unsaid: CliError | null,
): void {
  printLine(
    `${url}: ${ready.ready ? pc.green('ready') : pc.red('not ready')}, ` +
      `redis ${ready.redis ?? 'unknown'}, feed ${ready.notifications ?? 'unknown'}, ` +
      `eviction ${ready.eviction ?? 'unknown'}`,
  );
  // A queue whose state Redis lost does not make the server not ready; it is said here.
  for (const loss of ready.stateLost ?? []) {
    printLine(
      pc.red(`state lost: queue ${loss.queue} (${loss.cause}, ${loss.at}): see the server's log`),
    );
  }
  if (data === null) {
    printLine(`queues: none could be read${unsaid ? `: ${unsaid.message}` : ' (below)'}`);
    return;
  }
  if (data.queues.length === 0) {
    printLine('no queues yet (a queue appears with its first job or steering call)');
    return;
  }
  const rows = data.queues.map((queue) =>
    queue === null
      ? ['(unreadable)', ...HEAD.slice(1).map(() => '-')]
      : [
          queue.name,
          queue.state,
          queue.counts.groups,
          queue.counts.onRing,
          queue.counts.paused,
          queue.counts.saturated,
          queue.counts.pending,
          queue.counts.delayed,
          queue.counts.active,
          queue.counts.dead,
          queue.counts.completed,
        ],
  );
  printLine(table(HEAD, rows));
}
