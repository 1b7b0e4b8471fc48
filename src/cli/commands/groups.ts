/**
 * `ringmaster groups` (a page of a queue's groups, by id, optionally of one state) and
 * `ringmaster group <id>` (one group with why it gets no turn) — `Queue.groups`, `Queue.group`
 * (DESIGN.md §4.2).
 */
import type { Command } from 'commander';
import { Bounds } from '../bounds.js';
import { request } from '../client.js';
import { contextOf } from '../context.js';
import {
  CliGroupDocument,
  type CliGroupFragment,
  CliGroupsDocument,
  type CliGroupsQuery,
} from '../gql/graphql.js';
import { blockerStanding, STANDING_LABEL } from '../groupStanding.js';
import {
  GROUP_STATES,
  groupState,
  integer,
  integerRange,
  STATE_WORDS,
  type StateFilter,
} from '../options.js';
import {
  countdown,
  durationText,
  fields,
  groupTable,
  limitText,
  noteUnknownQueue,
  printJson,
  printLine,
  standingText,
  visible,
} from '../output.js';

/** The largest page the API serves (DESIGN.md §5, `first`). */
const MAX_PAGE = Bounds.first.max;

/** One group as key/value lines (`group`, and the steering commands' answers). */
export function groupFields(group: CliGroupFragment): string {
  return fields([
    ['group', visible(group.id)],
    ['queue', group.queue],
    ['state', standingText(group)],
    ['limit', limitText(group.limit)],
    ...(group.reserve > 0 ? [['reserve', group.reserve] as [string, number]] : []),
    ...(group.maxPending != null ? [['max pending', group.maxPending] as [string, number]] : []),
    ['weight', group.weight],
    [
      'rate limit',
      group.rateLimit
        ? `${group.rateLimit.max} ${group.rateLimit.max === 1 ? 'token' : 'tokens'} per ${durationText(group.rateLimit.windowMs)}, burst ${group.rateLimit.burst}`
        : 'none',
    ],
    ...(group.rateLimitedUntil
      ? [['rate-limited until', group.rateLimitedUntil] as [string, string]]
      : []),
    ['active', group.active],
    ['pending', group.pending],
    ['paused', group.paused ? 'yes' : 'no'],
    ...overrideRows(group),
    ['on ring', group.onRing ? 'yes' : 'no'],
    [
      'blocked by',
      group.blockedBy ? STANDING_LABEL[blockerStanding(group.blockedBy, group.active)] : '-',
    ],
    ['reason', group.reason],
  ]);
}

/** The pending reverts of timed overrides, as rows (none when there are none). */
function overrideRows(group: CliGroupFragment): [string, string][] {
  const rows: [string, string][] = [];
  const limit = group.limitOverride;
  if (limit) {
    rows.push([
      'limit reverts',
      `to ${limitText(limit.revertToLimit)} in ${durationText(countdown(limit.remainingMs))} (${limit.until}, set by ${visible(limit.actor)})`,
    ]);
  }
  const pause = group.pauseOverride;
  if (pause) {
    const [label, change] = pauseRevertLabel(group.paused, pause.revertToPaused === true);
    rows.push([
      label,
      `${change}in ${durationText(countdown(pause.remainingMs))} (${pause.until}, set by ${visible(pause.actor)})`,
    ]);
  }
  return rows;
}

/**
 * The row of a pending pause revert, by what it will do to the group as it is now: `resumes`
 * (paused, reverts to running), `pauses again` (running, reverts to paused), or `pause revert`
 * with `(no change) ` when it reverts to the state the group already has — a timed call on top
 * of an earlier one keeps that first one's target (DESIGN.md §4.8).
 */
export function pauseRevertLabel(paused: boolean, revertToPaused: boolean): [string, string] {
  if (paused === revertToPaused) return ['pause revert', '(no change) '];
  return [revertToPaused ? 'pauses again' : 'resumes', ''];
}

interface GroupsOptions {
  state?: StateFilter;
  first: number;
}

/** Add `groups` and `group` to `program`. */
export function registerGroups(program: Command): void {
  program
    .command('groups')
    .description(
      "a queue's groups by id; with --state only those in that state (pages are read until --first match)",
    )
    .option(
      '--state <state>',
      `a state as the tables say it (${STATE_WORDS.join(', ')}) or as the API names it (${GROUP_STATES.join(', ')}: READY is ready and re-joining, SATURATED at limit and parked, IDLE busy and empty); any case, - or space alike`,
      groupState,
    )
    .option(
      '--first <n>',
      `how many groups to show, ${integerRange(Bounds.first)}`,
      integer('--first', Bounds.first),
      50,
    )
    .action(async (options: GroupsOptions, command: Command) => {
      const context = contextOf(command);
      const queue = context.queue();
      const found: CliGroupFragment[] = [];
      let after: string | null = null;
      let totalCount = 0;
      let known = true;
      let more = true;
      // Without --state one page of --first; with it, pages of 500 until enough match.
      while (more && found.length < options.first) {
        const data: CliGroupsQuery = await request(context.connection, CliGroupsDocument, {
          queue,
          first: options.state === undefined ? options.first : MAX_PAGE,
          after,
        });
        const page = data.queue.groups;
        totalCount = page.totalCount;
        known = data.queue.known;
        for (const { node } of page.edges) {
          if (options.state === undefined || options.state.keeps(node)) found.push(node);
        }
        more = page.pageInfo.hasNextPage;
        after = page.pageInfo.endCursor ?? null;
        if (options.state === undefined) break;
      }
      const groups = found.slice(0, options.first);
      if (context.json) {
        printJson({ queue, known, totalCount, state: options.state?.name ?? null, groups });
        return;
      }
      noteUnknownQueue(queue, known);
      if (groups.length === 0) {
        const which = options.state === undefined ? '' : ` ${options.state.name}`;
        printLine(`no${which} groups in ${queue} (${totalCount} registered)`);
        return;
      }
      printLine(groupTable(groups));
      const of = options.state === undefined ? '' : ` ${options.state.name}`;
      printLine(`${groups.length}${of} of ${totalCount} groups in ${queue}`);
    });

  program
    .command('group')
    .description('one group: limit, active, pending, state and why it gets no turn')
    .argument('<id>', 'the group')
    .action(async (id: string, _options, command: Command) => {
      const context = contextOf(command);
      const data = await request(context.connection, CliGroupDocument, {
        queue: context.queue(),
        id,
      });
      if (context.json) {
        printJson(data);
        return;
      }
      noteUnknownQueue(context.queue(), data.queue.known);
      printLine(groupFields(data.queue.group));
    });
}
