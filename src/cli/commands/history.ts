/**
 * `ringmaster history`: the steering history, newest first — who did what to which group, and
 * the state before and after (`Queue.history`, DESIGN.md §4.6).
 */
import type { Command } from 'commander';
import { request } from '../client.js';
import { contextOf } from '../context.js';
import { CliHistoryDocument } from '../gql/graphql.js';
import { integer } from '../options.js';
import { printJson, printLine, table } from '../output.js';

/** The longest before → after text shown in a cell (characters). */
const CHANGE_WIDTH = 60;

/**
 * What an entry changed, in one short line: the keys whose values differ, `limit null → 3`;
 * every key when none differs (or a side is missing).
 */
export function changeText(before: unknown, after: unknown): string {
  if (!isObject(before) || !isObject(after)) return `${compact(before)} → ${compact(after)}`;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changed = keys.filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
  const shown = changed.length > 0 ? changed : keys;
  return shown.map((key) => `${key} ${text(before[key])} → ${text(after[key])}`).join(', ');
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** One JSON value as short text: strings bare, the rest as JSON. */
const text = (value: unknown): string =>
  value === undefined ? '-' : typeof value === 'string' ? value : JSON.stringify(value);

/** A JSON value in one short line: `{"paused":false}` → `paused false`. */
function compact(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value !== 'object') return String(value);
  return Object.entries(value as Record<string, unknown>)
    .map(
      ([key, v]) => `${key} ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`,
    )
    .join(', ');
}

/** `text` cut to `width` characters, with an ellipsis when cut. */
const cut = (text: string, width: number): string =>
  text.length <= width ? text : `${text.slice(0, width - 1)}…`;

/** The command that prints the page after `cursor`, with the same queue, group and size. */
function nextPageCommand(
  queue: string,
  options: { group?: string; first: number },
  cursor: string,
): string {
  const words = ['ringmaster', 'history', '-q', queue];
  if (options.group !== undefined) words.push('--group', options.group);
  if (options.first !== 20) words.push('--first', String(options.first));
  words.push('--after', cursor);
  return words.map(shellWord).join(' ');
}

/** A word as a POSIX shell reads it back: bare when safe, single-quoted otherwise. */
const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;

/** Add `history` to `program`. */
export function registerHistory(program: Command): void {
  program
    .command('history')
    .description('the steering history, newest first: who did what, before and after')
    .option('--group <group>', "only this group's")
    .option('--first <n>', 'how many entries, 1..500', integer(1, 500), 20)
    .option('--after <cursor>', 'the page after this cursor (the "more:" line of a page gives it)')
    .action(
      async (options: { group?: string; first: number; after?: string }, command: Command) => {
        const context = contextOf(command);
        const queue = context.queue();
        const data = await request(context.connection, CliHistoryDocument, {
          queue,
          group: options.group ?? null,
          first: options.first,
          after: options.after ?? null,
        });
        if (context.json) {
          printJson(data);
          return;
        }
        const { edges, totalCount, pageInfo } = data.queue.history;
        const where = options.group === undefined ? queue : `${options.group} in ${queue}`;
        if (edges.length === 0) {
          printLine(`no ${options.after === undefined ? '' : 'more '}steering history in ${where}`);
          return;
        }
        printLine(
          table(
            ['at', 'actor', 'action', 'group', 'change (before → after)'],
            edges.map(({ node }) => [
              String(node.at),
              node.actor,
              node.action,
              node.group === '' ? '(queue)' : node.group,
              cut(changeText(node.before, node.after), CHANGE_WIDTH),
            ]),
          ),
        );
        printLine(
          `${edges.length} of ${totalCount} ${totalCount === 1 ? 'entry' : 'entries'} in ${where}, newest first`,
        );
        if (pageInfo.hasNextPage && pageInfo.endCursor !== null) {
          printLine(`more: ${nextPageCommand(queue, options, pageInfo.endCursor)}`);
        }
      },
    );
}
