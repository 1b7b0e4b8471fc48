/**
 * `ringmaster status`: the server's readiness (GET /ready: Redis, the live feed's mode) and
 * every queue with its state and counts (`Query.queues`, DESIGN.md §4.2).
 */
import type { Command } from 'commander';
import pc from 'picocolors';
import { readiness, request } from '../client.js';
import { contextOf } from '../context.js';
import { CliStatusDocument } from '../gql/graphql.js';
import { printJson, printLine, table } from '../output.js';

/** Add `status` to `program`. */
export function registerStatus(program: Command): void {
  program
    .command('status')
    .description("the server's readiness and feed mode, and every queue with its counts")
    .action(async (_options, command: Command) => {
      const context = contextOf(command);
      const ready = await readiness(context.connection);
      const data = await request(context.connection, CliStatusDocument, {});
      if (context.json) {
        printJson({ ready, ...data });
        return;
      }
      const feed = ready.notifications ?? 'unknown';
      printLine(
        `${context.connection.url}: ${ready.ready ? pc.green('ready') : pc.red('not ready')}, ` +
          `redis ${ready.redis ?? 'unknown'}, feed ${feed}, eviction ${ready.eviction ?? 'unknown'}`,
      );
      if (data.queues.length === 0) {
        printLine('no queues yet (a queue appears with its first job or steering call)');
        return;
      }
      const rows = data.queues.map((queue) =>
        queue === null
          ? ['(unreadable)', '', '', '', '', '', '', '', '', '', '']
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
      printLine(
        table(
          [
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
          ],
          rows,
        ),
      );
    });
}
