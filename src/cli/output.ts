/**
 * How the CLI prints: `--json` writes the GraphQL data as it came (for scripts), otherwise
 * tables (cli-table3) and colour (picocolors, off when stdout is not a terminal or NO_COLOR is
 * set).
 */
import Table from 'cli-table3';
import pc from 'picocolors';
import { STANDING_LABEL, type StandingOf, standing } from './groupStanding.js';
import { visibleId } from './visibleText.js';

/**
 * Text a caller chose (a group id, job id, actor, error) as printed: each character that would
 * make it look like another text as a marker (`acme⟨ZWSP⟩`), the console's rule
 * (src/cli/visibleText.ts). `--json` prints
 * the text as it is.
 */
export const visible = visibleId;

/** Write `data` as JSON, two-space indented, one trailing newline. */
export function printJson(data: unknown): void {
  process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
}

/** Write a line. */
export function printLine(text = ''): void {
  process.stdout.write(`${text}\n`);
}

/**
 * Tell a read of a queue never used (`Queue.known` false: no job or setting was ever written)
 * from an empty one: one line on stderr, so that a mistyped -q is seen while stdout stays the
 * report; the exit code is not changed (reading an empty queue is no failure). `--json`
 * carries `known` instead.
 */
export function noteUnknownQueue(queue: string, known: boolean): void {
  if (known) return;
  process.stderr.write(
    `ringmaster: queue ${JSON.stringify(queue)} is not known to this Redis (no job or setting was ever written to it): check --queue / RINGMASTER_QUEUE\n`,
  );
}

/**
 * After a steering call, tell one that named a group the queue had never seen (`Group.known`
 * false in its answer, as before the call) — a mistyped id, now registered — as
 * {@link noteUnknownQueue} tells a queue: one line on stderr, the exit code unchanged.
 */
export function noteUnknownGroup(queue: string, group: string, known: boolean): void {
  if (known) return;
  process.stderr.write(
    `ringmaster: group ${JSON.stringify(group)} was not known in queue ${JSON.stringify(queue)} (no job or setting was ever written to it; the call registered it): check the group id\n`,
  );
}

/** A column whose cells wrap at `width` characters rather than widen the table. */
export interface WrapColumn {
  /** The column's index in `head`. */
  column: number;
  /** Characters per line of its cells; a longer word is broken, so nothing is cut. */
  width: number;
}

/** The widest a table's cell is shown (characters), unless its column says otherwise. */
export const MAX_CELL = 40;

/**
 * `text` cut to `width` characters (code points, so a pair is never split) with an ellipsis as
 * its last: a table's long cell (a 256-byte group id would widen every row of its table to
 * ~260 columns). The whole value is in `--json`. Coloured text (escapes) is left whole.
 */
export function cutCell(text: string, width = MAX_CELL): string {
  if (text.length <= width || text.includes('\u001b')) return text;
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join('')}…`;
}

/**
 * A table of `rows` under `head` as text (no colour in the borders, so it diffs cleanly).
 * Cells may hold several lines (`\n`); with `wrap`, that column's lines wrap at its width.
 * Every other cell is cut to {@link MAX_CELL} characters with an ellipsis ({@link cutCell}),
 * or to `widths[column]` where given.
 */
export function table(
  head: string[],
  rows: (string | number)[][],
  options: { wrap?: WrapColumn; widths?: Record<number, number> } = {},
): string {
  const { wrap, widths = {} } = options;
  const t = new Table({
    head,
    style: { head: [], border: [], compact: true },
    ...(wrap && {
      // null: as wide as its widest cell; the wrapped column's width counts its padding (2).
      colWidths: head.map((_, i) => (i === wrap.column ? wrap.width + 2 : null)),
      wordWrap: true,
      // On word boundaries cli-table3 cuts a word longer than the column (with "…"): a JSON
      // value has no spaces, so lines are broken anywhere instead, and nothing is lost.
      wrapOnWordBoundary: false,
    }),
  });
  for (const row of rows) {
    t.push(
      row.map((cell, i) => (i === wrap?.column ? String(cell) : cutCell(String(cell), widths[i]))),
    );
  }
  return t.toString();
}

/**
 * `words` as one command line a POSIX shell reads back as those words: each bare when safe,
 * single-quoted otherwise (`ringmaster group 'a b' -q q`).
 */
export const shellCommand = (words: readonly string[]): string => words.map(shellWord).join(' ');

const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;

/** Key/value lines, keys padded to one width. */
export function fields(pairs: [string, string | number][]): string {
  const width = Math.max(...pairs.map(([key]) => key.length));
  return pairs.map(([key, value]) => `${pc.dim(key.padEnd(width))}  ${value}`).join('\n');
}

/**
 * A group's state in the words every surface uses ({@link standing}: `at limit`, `busy`, …),
 * coloured by how it stands: ready green, at its limit or rate yellow, parked or paused red.
 */
export function standingText(group: StandingOf): string {
  const s = standing(group);
  const label = STANDING_LABEL[s];
  switch (s) {
    case 'ready':
      return pc.green(label);
    case 'limit':
    case 'rated':
    case 'rejoining':
      return pc.yellow(label);
    case 'parked':
    case 'paused':
      return pc.red(label);
    default:
      return pc.dim(label);
  }
}

/** A limit as shown: none for unlimited. */
export const limitText = (limit: number | null | undefined): string =>
  limit === null || limit === undefined ? 'none' : String(limit);

/**
 * A remaining time as shown (docs/cli.md): rounded up, so a revert is never shown as nearer
 * than it is — to the second from 10 s (`9m 58s`), to a tenth of a second under 10 s (a
 * `--for 1.5s` shows `1.5s`, not `2s`), exact under 1 s (`250ms`).
 */
export function countdown(ms: number): number {
  if (ms < 1000) return ms;
  const step = ms < 10_000 ? 100 : 1000;
  return Math.ceil(ms / step) * step;
}

/**
 * A span of ms, exactly, in days, hours, minutes and seconds (with the ms as a fraction):
 * 1d 2h, 10m, 1.5s, 1m 30.25s, 250ms; 1h 5ms when only ms are left under the minutes.
 */
export function durationText(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
  ];
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  if (rest >= 1000) parts.push(`${rest / 1000}s`);
  else if (rest > 0) parts.push(`${rest}ms`);
  return parts.join(' ');
}

/** Groups as a table, one row each. */
export function groupTable(
  groups: readonly {
    id: string;
    state: string;
    limit?: number | null;
    active: number;
    pending: number;
    onRing: boolean;
  }[],
): string {
  return table(
    ['group', 'state', 'limit', 'active', 'pending', 'on ring'],
    groups.map((g) => [
      visible(g.id),
      standingText(g),
      limitText(g.limit),
      g.active,
      g.pending,
      g.onRing ? 'yes' : 'no',
    ]),
  );
}
