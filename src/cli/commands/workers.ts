/**
 * `ringmaster workers`: the queue's live workers (`Queue.workers`, DESIGN.md §4.9 "Workers"),
 * one row each: id, host, pid, concurrency, jobs held, when it started, when it was last seen
 * and its version. A GraphQL client (`claim(workerId:)`) has no host, pid or concurrency: `-`.
 */
import type { Command } from 'commander';
import { request } from '../client.js';
import { contextOf } from '../context.js';
import { CliWorkersDocument } from '../gql/graphql.js';
import { noteUnknownQueue, printJson, printLine, table, visible } from '../output.js';

const HEAD = ['id', 'hostname', 'pid', 'concurrency', 'active', 'started', 'last seen', 'version'];

/** A value the worker may not have said (a client's host, pid, …): `-` for none. */
const orDash = (value: string | number | null): string | number => (value === null ? '-' : value);

/** Add `workers` to `program`. */
export function registerWorkers(program: Command): void {
  program
    .command('workers')
    .description(
      "a queue's live workers: id, host, pid, concurrency, jobs held, started, last seen, version",
    )
    .action(async (_options, command: Command) => {
      const context = contextOf(command);
      const queue = context.queue();
      const data = await request(context.connection, CliWorkersDocument, { queue });
      const workers = data.queue.workers;
      if (context.json) {
        printJson({ queue, known: data.queue.known, workers });
        return;
      }
      noteUnknownQueue(queue, data.queue.known);
      if (workers.length === 0) {
        printLine(`no live workers in ${queue}`);
        return;
      }
      printLine(
        table(
          HEAD,
          workers.map((w) => [
            visible(w.id),
            w.hostname === null ? '-' : visible(w.hostname),
            orDash(w.pid),
            orDash(w.concurrency),
            w.active,
            w.startedAt,
            w.lastSeenAt,
            w.version === null ? '-' : visible(w.version),
          ]),
        ),
      );
      const held = workers.reduce((sum, w) => sum + w.active, 0);
      printLine(
        `${workers.length} ${workers.length === 1 ? 'worker' : 'workers'} in ${queue}, holding ${held} ${held === 1 ? 'job' : 'jobs'}`,
      );
    });
}
