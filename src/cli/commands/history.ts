/**
 * `ringmaster history`: the steering history, newest first — who did what to which group, and
 * the state before and after (`Queue.history`, DESIGN.md §4.6).
 */
import type { Command } from 'commander';
import { Bounds } from '../bounds.js';
import { request } from '../client.js';
import { contextOf } from '../context.js';
import { CliHistoryDocument } from '../gql/graphql.js';
import { detailLines, type Words } from '../historyDetail.js';
import { integer, integerRange } from '../options.js';
import {
  durationText,
  noteUnknownQueue,
  printJson,
  printLine,
  shellCommand,
  table,
  visible,
} from '../output.js';

/** The CLI's words for a detail's moments and spans: ISO dates, exact durations. */
export const CLI_WORDS: Words = { date: (ms) => new Date(ms).toISOString(), span: durationText };

/** The width of the before → after column (characters); longer lines wrap, never cut. */
const CHANGE_WIDTH = 60;

/**
 * What an entry changed, whole, one line per changed value: `limit null → 3`; a value nested in
 * objects on both sides by its path (`completed.count 1000 → 5`), so a long object shows only
 * what differs. When nothing differs (cancelOverride's equal sides), every value, on one line,
 * marked `(unchanged)`; a side that is no object is shown whole (`-` for none).
 */
export function changeText(before: unknown, after: unknown): string {
  if (!isObject(before) || !isObject(after)) return `${compact(before)} → ${compact(after)}`;
  const changed = changes(before, after, '');
  if (changed.length > 0) return changed.join('\n');
  return `${compact(after)} (unchanged)`;
}

/** The `path before → after` lines of the values that differ, nested objects by their paths. */
function changes(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  prefix: string,
): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys.flatMap((key) => {
    const [b, a] = [before[key], after[key]];
    if (isObject(b) && isObject(a)) return changes(b, a, `${prefix}${key}.`);
    if (JSON.stringify(b) === JSON.stringify(a)) return [];
    return [`${prefix}${key} ${text(b)} → ${text(a)}`];
  });
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** One JSON value as short text: strings bare, the rest as JSON. */
const text = (value: unknown): string =>
  value === undefined ? '-' : typeof value === 'string' ? value : JSON.stringify(value);

/** A JSON value in one line: `{"paused":false}` → `paused false`. */
function compact(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value !== 'object') return String(value);
  return Object.entries(value as Record<string, unknown>)
    .map(
      ([key, v]) => `${key} ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`,
    )
    .join(', ');
}

/** The change column of an entry: what changed, then its detail (if any) on lines of its own. */
function entryText(action: string, before: unknown, after: unknown, detail: unknown): string {
  return [changeText(before, after), ...detailLines(action, detail, CHANGE_WIDTH, CLI_WORDS)].join(
    '\n',
  );
}

/**
 * The line under a page. `totalCount` counts the queue's kept entries, every group's: with
 * `--group` it is only an upper bound of that group's (Queue.history, DESIGN.md §4.6), so it is
 * named as the queue's, never as the group's.
 */
export function countText(
  queue: string,
  group: string | undefined,
  shown: number,
  totalCount: number,
): string {
  const entries = (n: number) => `${n} ${n === 1 ? 'entry' : 'entries'}`;
  if (group === undefined) return `${shown} of ${entries(totalCount)} in ${queue}, newest first`;
  return `${entries(shown)} of ${visible(group)} shown, newest first (${totalCount} in ${queue}'s history, all groups)`;
}

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
  return shellCommand(words);
}

/** Add `history` to `program`. */
export function registerHistory(program: Command): void {
  program
    .command('history')
    .description('the steering history, newest first: who did what, before and after')
    .option('--group <group>', "only this group's")
    .option(
      '--first <n>',
      `how many entries, ${integerRange(Bounds.first)}`,
      integer('--first', Bounds.first),
      20,
    )
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
        noteUnknownQueue(queue, data.queue.known);
        const { edges, totalCount, pageInfo } = data.queue.history;
        const where = options.group === undefined ? queue : `${visible(options.group)} in ${queue}`;
        if (edges.length === 0) {
          printLine(`no ${options.after === undefined ? '' : 'more '}steering history in ${where}`);
          return;
        }
        printLine(
          table(
            ['at', 'actor', 'action', 'group', 'change (before → after); detail'],
            edges.map(({ node }) => [
              String(node.at),
              visible(node.actor),
              node.action,
              node.group === '' ? '(queue)' : visible(node.group),
              entryText(node.action, node.before, node.after, node.detail),
            ]),
            { wrap: { column: 4, width: CHANGE_WIDTH } },
          ),
        );
        printLine(countText(queue, options.group, edges.length, totalCount));
        if (pageInfo.hasNextPage && pageInfo.endCursor !== null) {
          printLine(`more: ${nextPageCommand(queue, options, pageInfo.endCursor)}`);
        }
      },
    );
}
