/**
 * `ringmaster top`: a live view of one queue — its ring (from the `ringChanged` subscription
 * over graphql-ws, DESIGN.md §4.4), counts, counters and busiest groups (`Queue.activeGroups`,
 * most active first) — redrawn in place (log-update) on every ring event and every
 * `--interval`. When stdout is not a terminal (`top | tee top.log`), each frame is written after
 * the last instead, and at most one per `--interval` (the first once the ring's snapshot has
 * come, then one each interval with the latest ring and counts), so a busy ring cannot flood a
 * file. `q` or Ctrl-C quits (exit 0). With `--json`, one JSON line per frame, bounded alike.
 */
import { type Command, Option } from 'commander';
import pc from 'picocolors';
import { Bounds } from '../bounds.js';
import { type Connection, request, subscriptionError, wsClient } from '../client.js';
import { contextOf } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import {
  CliRingDocument,
  type CliRingSubscription,
  CliTopDocument,
  type CliTopQuery,
} from '../gql/graphql.js';
import { duration, durationRange, integer, integerRange } from '../options.js';
import { groupTable, noteUnknownQueue, visible } from '../output.js';

interface TopOptions {
  first: number;
  interval: number;
}

/** Add `top` to `program`. */
export function registerTop(program: Command): void {
  program
    .command('top')
    .description('a live view of the ring and the busiest groups; q or Ctrl-C quits')
    .option(
      '--first <n>',
      `busiest groups shown, ${integerRange(Bounds.topFirst)}`,
      integer('--first', Bounds.topFirst),
      10,
    )
    .addOption(
      new Option(
        '--interval <duration>',
        `redraw the counts at least this often (500ms, 10s, …; a unit is needed; ${durationRange(Bounds.interval)})`,
      )
        .default(2000, '2s')
        .argParser(duration('--interval', Bounds.interval)),
    )
    .action(async (options: TopOptions, command: Command) => {
      const context = contextOf(command);
      await top(context.connection, context.queue(), options, context.json);
    });
}

type Ring = CliRingSubscription['ringChanged'];

/**
 * One frame of the view as text, `width` columns wide for the ring line. `hint`: end with how
 * to quit — for a terminal, where frames are redrawn in place for a person; not in frames
 * written to a pipe or a file, where it would only be noise in every frame.
 */
export function renderTop(
  queue: string,
  ring: Ring | null,
  data: CliTopQuery,
  first: number,
  width: number,
  hint = true,
): string {
  const q = data.queue;
  const state = ring?.queueState ?? q.state;
  const c = q.counts;
  const s = q.stats;
  const ringIds = ring?.ring ?? q.ring;
  const ringText = ringIds.length === 0 ? pc.dim('(empty)') : ringIds.map(visible).join(' → ');
  const busiest = [...q.activeGroups]
    .sort((a, b) => b.active - a.active || b.pending - a.pending || (a.id < b.id ? -1 : 1))
    .slice(0, first);
  const ringHead = `ring (${ring?.size ?? ringIds.length}, head first): `;
  const lines = [
    `${pc.bold('ringmaster top')} · queue ${pc.bold(queue)} · ${state === 'PAUSED' ? pc.red(state) : pc.green(state)} · ${new Date().toISOString().slice(11, 19)}`,
    `groups ${c.groups}  on ring ${c.onRing}  paused ${c.paused}  limit reached ${c.saturated}`,
    `jobs   pending ${c.pending}  delayed ${c.delayed}  active ${c.active}  dead ${c.dead}`,
    pc.dim(
      `since  enqueued ${s.enqueued}  claimed ${s.claimed}  completed ${s.completed}  retried ${s.retried}  reaped ${s.reaped}`,
    ),
    '',
    `${ringHead}${cutVisible(ringText, Math.max(10, width - ringHead.length - 1))}`,
    '',
    busiest.length === 0
      ? pc.dim('no group has jobs in flight')
      : `busiest groups (${busiest.length} of ${q.activeGroups.length} with jobs in flight):\n${groupTable(busiest)}`,
    ...(hint ? ['', pc.dim('q or Ctrl-C quits')] : []),
  ];
  return lines.join('\n');
}

/**
 * stdout as log-update sees it, with a size: a terminal that reports 0 rows (a pty nobody sized,
 * as under `script`) would have every line cut from the frame.
 */
function sizedStdout(): NodeJS.WriteStream {
  const out = process.stdout;
  return new Proxy(out, {
    get(target, key) {
      if (key === 'rows') return target.rows || 24;
      if (key === 'columns') return target.columns || 80;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Where the frames go: redrawn in place, or written one after another. */
interface Frames {
  (frame: string): void;
  /** The last frame stays; the cursor (hidden while redrawing) is shown again. */
  done(): void;
}

/**
 * On a terminal, log-update: each frame replaces the last in place (cursor moves, line
 * erases). Anywhere else (a pipe, a file: `top | tee top.log`) those escapes would be written
 * into the output, so each frame is written whole after the last, a blank line between — the
 * same test of stdout as colour's (picocolors: off when stdout is not a terminal).
 */
async function frames(): Promise<Frames> {
  // Imported here: only `top` on a terminal needs it, and every other command starts faster.
  if (process.stdout.isTTY === true) {
    const { createLogUpdate } = await import('log-update');
    return createLogUpdate(sizedStdout());
  }
  const write: Frames = Object.assign((frame: string) => process.stdout.write(`${frame}\n\n`), {
    done: () => {},
  });
  return write;
}

/** `text` cut to `width` characters (the ring line of a long ring). */
function cutVisible(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

/**
 * Run the view until q, Ctrl-C or SIGINT (resolves) or a failure (rejects with its
 * {@link CliError}: AUTH for a refused token, UNREACHABLE when the socket closes, …).
 */
async function top(
  connection: Connection,
  queue: string,
  options: TopOptions,
  json: boolean,
): Promise<void> {
  // The first read answers bad input, auth and reachability with their codes before any drawing.
  let data = await request(connection, CliTopDocument, { queue });
  // Each --json line has `known`; a person is told once, before the view takes the screen.
  if (!json) noteUnknownQueue(queue, data.queue.known);
  const client = await wsClient(connection);
  const log = await frames();
  const stdin = process.stdin;
  const raw = stdin.isTTY === true;
  // A terminal is redrawn in place on every ring event; a pipe or file gets a frame per interval.
  const live = process.stdout.isTTY === true;

  await new Promise<void>((resolve, reject) => {
    let ring: Ring | null = null;
    let stopped = false;
    let reading = false;
    let again = false;
    let firstAsked = false;

    const draw = () => {
      if (stopped) return;
      if (json) process.stdout.write(`${JSON.stringify({ ring, queue: data.queue })}\n`);
      else {
        const width = process.stdout.columns || 80;
        log(renderTop(queue, ring, data, options.first, width, live));
      }
    };
    /** Read the queue again and redraw; reads never overlap (one more after, if asked). */
    const refresh = async () => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          data = await request(connection, CliTopDocument, { queue });
          draw();
        } while (again && !stopped);
      } catch (error) {
        finish(error);
      } finally {
        reading = false;
      }
    };
    const onKey = (chunk: Buffer | string) => {
      const text = chunk.toString();
      if (text.includes('q') || text.includes('Q') || text.includes('\u0003')) finish();
    };
    const onSignal = () => finish();
    const timer = setInterval(() => {
      firstAsked = true;
      void refresh();
    }, options.interval);

    const unsubscribe = client.subscribe<CliRingSubscription>(
      { query: String(CliRingDocument), variables: { queue } },
      {
        next: (result) => {
          if (result.errors?.length) {
            finish(subscriptionError(connection, result.errors));
            return;
          }
          if (!result.data) return;
          ring = result.data.ringChanged;
          // Off a terminal a ring event draws only the first frame; then the interval does.
          if (live) void refresh();
          else if (!firstAsked) {
            firstAsked = true;
            void refresh();
          }
        },
        error: (error) => finish(subscriptionError(connection, error)),
        complete: () =>
          finish(new CliError('the server ended the ring subscription', ExitCode.UNREACHABLE)),
      },
    );

    function finish(error?: unknown): void {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      unsubscribe();
      void client.dispose();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      stdin.off('data', onKey);
      if (raw) stdin.setRawMode(false);
      stdin.pause();
      // A pipe that was read from keeps the process alive even paused: let it go.
      (stdin as { unref?: () => void }).unref?.();
      if (!json) log.done();
      if (error === undefined) resolve();
      else reject(error instanceof CliError ? error : subscriptionError(connection, error));
    }

    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    if (raw) stdin.setRawMode(true);
    stdin.on('data', onKey);
    stdin.resume();
    // Off a terminal the first frame waits for the ring's snapshot (or the first interval).
    if (live) draw();
  });
}
