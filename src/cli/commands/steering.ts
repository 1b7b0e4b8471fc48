/**
 * The steering commands (admin, DESIGN.md §4.3): `limit <group> <n>`, `unlimit <group>`,
 * `pause <group>`, `resume <group>`; each prints the group after. `--for 10m` makes `limit`,
 * `pause` or `resume` a timed override (`forMs`, DESIGN.md §4.8) that reverts on its own; a plain call drops
 * a pending revert of its kind, and `cancel <group> limit|pause` drops it keeping the value now.
 * A call that got no answer may have been applied: exit UNCONFIRMED, naming {@link groupCheck}.
 */
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
import { Argument, type Command, Option } from 'commander';
import { revertOutcome } from '../../overrideWords.js';
import { Bounds } from '../bounds.js';
import { request } from '../client.js';
import { type CliContext, contextOf } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import {
  CliCancelOverrideDocument,
  CliClearLimitDocument,
  CliGroupDocument,
  type CliGroupFragment,
  CliPauseDocument,
  CliResumeDocument,
  CliSetLimitDocument,
} from '../gql/graphql.js';
import { duration, durationRange, integer, integerRange } from '../options.js';
import {
  durationText,
  limitText,
  noteUnknownGroup,
  printJson,
  printLine,
  shellCommand,
  visible,
} from '../output.js';
import { groupFields } from './groups.js';
import { already, groupBefore } from './unchanged.js';

/** The command that shows `group` as it is now: what to run when a change went unanswered. */
export const groupCheck = (queue: string, group: string): string =>
  shellCommand(['ringmaster', 'group', group, '-q', queue]);

/**
 * Print a mutation's answer: the data as JSON, or what was done and the group after, and a note
 * on stderr when the call named a group the queue had never seen (`--json` carries `known`).
 */
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
  noteUnknownGroup(group.queue, group.id, group.known);
}

/**
 * One change of `group` by a steering command: the group read first ({@link groupBefore}: how
 * the report tells a no-op), then the mutation of `document` with the queue's `variables`, its
 * unanswered failure naming {@link groupCheck}. Answers what the report needs.
 */
export async function steerGroup<T, V>(
  command: Command,
  group: string,
  document: DocumentTypeDecoration<T, V>,
  variables: (queue: string) => V,
): Promise<{ context: CliContext; queue: string; before: CliGroupFragment | null; data: T }> {
  const context = contextOf(command);
  const queue = context.queue();
  const before = await groupBefore(context, queue, group);
  const data = await request(
    context.connection,
    document,
    variables(queue),
    groupCheck(queue, group),
  );
  return { context, queue, before, data };
}

/**
 * `--for <duration>`: a timed override (DESIGN.md §4.8); `what` says what it does at its
 * deadline and when it is the plain call instead — when the value before it (before the first
 * pending override of its kind) is the value it sets, so that nothing would revert.
 */
const forOption = (what: string): Option =>
  new Option(
    '--for <duration>',
    `${what} (10m, 30s, 500ms, …; a unit is needed; ${durationRange(Bounds.for)})`,
  ).argParser(duration('--for', Bounds.for));

/** Add the steering commands to `program`. */
export function registerSteering(program: Command): void {
  program
    .command('limit')
    .description('set the most jobs of a group that may be active at once (0 parks it)')
    .argument('<group>', 'the group')
    .argument('<limit>', `the limit, ${integerRange(Bounds.limit)}`, integer('limit', Bounds.limit))
    .addOption(
      forOption(
        'set the limit for this long, then go back to the limit from before (from before the first pending timed limit); when that is this limit, nothing reverts: it is a plain limit',
      ),
    )
    .action(async (group: string, limit: number, options: { for?: number }, command: Command) => {
      const forMs = options.for ?? null;
      const { context, queue, before, data } = await steerGroup(
        command,
        group,
        CliSetLimitDocument,
        (queue) => ({ queue, group, limit, forMs }),
      );
      const who = `limit of ${visible(group)} in ${queue}`;
      const timed = data.setLimit?.limitOverride;
      report(
        context,
        data,
        before && already.limit(before, limit) && !timed
          ? `${who} already ${limit} (unchanged)`
          : forMs === null
            ? `${who} set to ${limit}`
            : timed
              ? `${who} set to ${limit} for ${durationText(forMs)}, then ${revertOutcome('limit', timed.revertToLimit ?? null, false)}`
              : `${who} set to ${limit}; no revert is pending: it stays ${limit}`,
      );
    });

  program
    .command('unlimit')
    .description('remove the limit of a group: it is unlimited')
    .argument('<group>', 'the group')
    .action(async (group: string, _options, command: Command) => {
      const { context, queue, before, data } = await steerGroup(
        command,
        group,
        CliClearLimitDocument,
        (queue) => ({ queue, group }),
      );
      report(
        context,
        data,
        before && already.unlimit(before)
          ? `${visible(group)} in ${queue} had no limit (unchanged)`
          : `limit of ${visible(group)} in ${queue} removed`,
      );
    });

  program
    .command('pause')
    .description('stop new turns for a group; its backlog and active jobs are untouched')
    .argument('<group>', 'the group')
    .addOption(
      forOption(
        'pause for this long, then resume — if the group was running before (before the first pending timed pause or resume); a group that was paused stays paused: nothing reverts, it is a plain pause',
      ),
    )
    .action(async (group: string, options: { for?: number }, command: Command) => {
      const forMs = options.for ?? null;
      const { context, queue, before, data } = await steerGroup(
        command,
        group,
        CliPauseDocument,
        (queue) => ({ queue, group, forMs }),
      );
      const done =
        before && already.pause(before) && !data.pauseGroup?.pauseOverride
          ? `${visible(group)} in ${queue} already paused (unchanged)`
          : forMs === null
            ? `${visible(group)} in ${queue} paused`
            : timedPauseText(`${visible(group)} in ${queue}`, 'paused', forMs, data.pauseGroup);
      report(context, data, done);
    });

  program
    .command('resume')
    .description('unpause a group; it re-joins the ring if serviceable')
    .argument('<group>', 'the group')
    .addOption(
      forOption(
        'resume for this long, then pause again — if the group was paused before (before the first pending timed pause or resume); a group that was running stays running: nothing reverts, it is a plain resume',
      ),
    )
    .action(async (group: string, options: { for?: number }, command: Command) => {
      const forMs = options.for ?? null;
      const { context, queue, before, data } = await steerGroup(
        command,
        group,
        CliResumeDocument,
        (queue) => ({ queue, group, forMs }),
      );
      const done =
        before && already.resume(before) && !data.resumeGroup?.pauseOverride
          ? `${visible(group)} in ${queue} was not paused (unchanged)`
          : forMs === null
            ? `${visible(group)} in ${queue} resumed`
            : timedPauseText(`${visible(group)} in ${queue}`, 'resumed', forMs, data.resumeGroup);
      report(context, data, done);
    });

  program
    .command('cancel')
    .description(
      'drop the pending revert of a timed limit or pause; the value now stays (none pending: says "nothing to cancel", exit 0)',
    )
    .argument('<group>', 'the group')
    .addArgument(new Argument('<kind>', 'which timed override').choices(['limit', 'pause']))
    .action(async (group: string, kind: 'limit' | 'pause', _options, command: Command) => {
      const context = contextOf(command);
      await cancel(context, context.queue(), group, kind);
    });
}

/**
 * `cancel <group> limit|pause`. The mutation answers the group after, which looks the same
 * whether a revert was dropped or none was pending, so the group is read first: with none of
 * that kind pending, nothing is sent (the server would change nothing) and the command says
 * "nothing to cancel" and exits 0 — the state a script asked for holds. `--json` adds
 * `cancelled` beside `cancelOverride` (the group): true, false, or null when the value moved
 * between the read and the cancel (a revert that came due first: perhaps nothing was dropped).
 */
async function cancel(
  context: CliContext,
  queue: string,
  group: string,
  kind: 'limit' | 'pause',
): Promise<void> {
  const now = (await request(context.connection, CliGroupDocument, { queue, id: group })).queue
    .group;
  const pending = kind === 'limit' ? now.limitOverride : now.pauseOverride;
  if (!pending) {
    if (context.json) {
      printJson({ cancelled: false, cancelOverride: now });
      return;
    }
    printLine(`nothing to cancel: ${visible(group)} in ${queue} has no timed ${kind} pending`);
    printLine(groupFields(now));
    return;
  }
  const data = await request(
    context.connection,
    CliCancelOverrideDocument,
    { queue, group, kind: kind === 'limit' ? 'LIMIT' : 'PAUSE' },
    groupCheck(queue, group),
  );
  const after = data.cancelOverride;
  // The value moved between the read and the cancel: the revert came due first (or another
  // call changed it), so the cancel may have found nothing to drop. Say so; never "cancelled".
  const moved =
    after !== null && after !== undefined && steeredValue(kind, after) !== steeredValue(kind, now);
  if (context.json) {
    printJson({ cancelled: moved ? null : true, ...data });
    return;
  }
  report(
    context,
    data,
    moved
      ? `the ${kind} of ${visible(group)} in ${queue} went from ${steeredValue(kind, now)} to ${steeredValue(kind, after)} before the cancel arrived (its revert came due, or another call): it may have had nothing to cancel; see \`${shellCommand(['ringmaster', 'history', '-q', queue, '--group', group])}\``
      : `${cancelledText(kind, 'revertToPaused' in pending && pending.revertToPaused === true, now)} of ${visible(group)} in ${queue} cancelled: it stays ${kind === 'pause' && !now.paused ? 'running' : steeredValue(kind, now)}`,
  );
}

/**
 * What a pending revert of `kind` came from, as the operator set it: a timed limit, a timed
 * pause (a revert that resumes), or a timed resume (a revert that pauses again).
 */
const cancelledText = (kind: 'limit' | 'pause', revertToPaused: boolean, now: CliGroupFragment) =>
  kind === 'limit' ? 'timed limit' : revertToPaused && !now.paused ? 'timed resume' : 'timed pause';

/** What a timed override of `kind` sets, as shown: the limit (`none`), or paused / not paused. */
const steeredValue = (kind: 'limit' | 'pause', group: CliGroupFragment): string =>
  kind === 'limit' ? limitText(group.limit) : group.paused ? 'paused' : 'not paused';

/**
 * The first line after `pause --for` or `resume --for`, worded from the answer (the group
 * after) rather than from the request: a timed call whose revert would restore the value it
 * sets is the plain call (DESIGN.md §4.8: a timed call on top of a pending one keeps that
 * first one's revert target), so `pause --for 1h` of a group whose timed resume will revert to
 * paused, or `resume --for 15m` after a timed pause, leaves no revert pending. A revert that
 * restores the state the group has (another writer's) is said as such. `who` is `g in q`;
 * `verb` what was asked (`paused`, `resumed`).
 */
export function timedPauseText(
  who: string,
  verb: 'paused' | 'resumed',
  forMs: number,
  after: CliGroupFragment | null | undefined,
): string {
  if (!after) return `${who} ${verb} for ${durationText(forMs)}`;
  const now = after.paused ? 'paused' : 'running';
  const revert = after.pauseOverride;
  if (!revert) return `${who} ${verb}; no revert is pending: it stays ${now}`;
  const revertToPaused = revert.revertToPaused === true;
  if (revertToPaused === after.paused) {
    return `${who} ${verb}; it stays ${now} after ${durationText(forMs)}: the pending revert restores the state before the first timed call still pending, ${now}`;
  }
  return `${who} ${verb} for ${durationText(forMs)}, then ${revertOutcome('pause', revertToPaused, after.paused)}`;
}
