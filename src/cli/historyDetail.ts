/**
 * A history entry's `detail` (DESIGN.md §4.6, the table's last column) in words, for
 * `ringmaster history` and the console's History panel alike: parts in a fixed order (Redis
 * writes a JSON object's keys in any), times as dates and spans as durations in the caller's
 * {@link Words}, a revert target as what it restores. Imports nothing, so the console's bundle
 * takes it as it is. With the CLI's words:
 *
 *   setLimit --for 10m   → `for 10m, until 2026-12-01T20:15:03.466Z`
 *   revert (timer)       → `kind pause, until …, reverts to running, set at …, set by alice`
 *   resume (plain)       → `cancelled: until …, reverts to paused, set at …, set by alice`
 *   requeueDead          → `mode group, count 2, remaining 0, skipped 0, ids 1-0 1-1 (+8)`
 *   repair               → `step groups, changes 3`
 */

/** How a caller writes a moment (Redis-clock ms) and a span (ms). */
export interface Words {
  date: (ms: number) => string;
  span: (ms: number) => string;
}

/** Keys whose number is a Redis-clock time in ms, shown as an ISO date. */
const DATE_KEYS = new Set(['until', 'setAt', 'at']);

/** How a key is named in the line; any other key as it is. */
const LABELS: Record<string, string> = {
  forMs: 'for',
  revertTo: 'reverts to',
  setAt: 'set at',
  setBy: 'set by',
  actor: 'set by',
  resetAttempts: 'reset attempts',
};

/** The override kind an action's detail is about: its `kind`, else the action's own. */
function kindOf(action: string, detail: Record<string, unknown>): 'limit' | 'pause' | undefined {
  if (detail.kind === 'limit' || detail.kind === 'pause') return detail.kind;
  if (action === 'setLimit' || action === 'clearLimit') return 'limit';
  if (action === 'pause' || action === 'resume') return 'pause';
  return undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The order keys are shown in (the rest after, as written); a dropped override comes last. */
const ORDER = [
  'kind',
  'step',
  'mode',
  'state',
  'count',
  'remaining',
  'skipped',
  'forMs',
  'until',
  'revertTo',
  'setAt',
  'setBy',
  'actor',
];
const rank = (key: string): number => {
  const i = ORDER.indexOf(key);
  return key === 'cancelled' ? ORDER.length + 1 : i === -1 ? ORDER.length : i;
};

/** One value of `key` as shown (not an object: {@link parts} spreads those). */
function valueText(
  key: string,
  value: unknown,
  kind: 'limit' | 'pause' | undefined,
  words: Words,
): string {
  if (key === 'revertTo') {
    if (typeof value === 'boolean') return value ? 'paused' : 'running';
    if (value === null) return kind === 'limit' ? 'no limit' : 'none';
  }
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'number' && DATE_KEYS.has(key)) return words.date(value);
  if (typeof value === 'number' && key.endsWith('Ms')) return words.span(value);
  if (Array.isArray(value)) {
    return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(' ');
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * The `key value` parts of a detail, in {@link ORDER}; a nested object (a dropped override,
 * `cancelled`) as `cancelled: <its first part>` then its other parts; `ids` last, with how many
 * more `idCount` says there were.
 */
function parts(
  detail: Record<string, unknown>,
  kind: 'limit' | 'pause' | undefined,
  words: Words,
): string[] {
  const { ids, idCount, ...rest } = detail;
  const keys = Object.keys(rest).sort((a, b) => rank(a) - rank(b));
  const out = keys.flatMap((key) => {
    const value = rest[key];
    const label = LABELS[key] ?? key;
    if (!isObject(value)) return [`${label} ${valueText(key, value, kind, words)}`];
    const inner = parts(value, kind, words);
    return inner.length === 0 ? [`${label} none`] : [`${label}: ${inner[0]}`, ...inner.slice(1)];
  });
  if (Array.isArray(ids)) {
    const more =
      typeof idCount === 'number' && idCount > ids.length ? ` (+${idCount - ids.length})` : '';
    out.push(`ids ${valueText('ids', ids, kind, words)}${more}`);
  } else if (idCount !== undefined) {
    out.push(`idCount ${valueText('idCount', idCount, kind, words)}`);
  }
  return out;
}

/**
 * `detail` of an entry of `action` as its parts (`for 10m`, `until 2026-…Z`); none when it has
 * none (null, `{}`). A value that is no object (never written by the scripts) is one JSON part.
 */
export function detailParts(action: string, detail: unknown, words: Words): string[] {
  if (detail === null || detail === undefined) return [];
  if (!isObject(detail)) return [JSON.stringify(detail)];
  return parts(detail, kindOf(action, detail), words);
}

/** `detail` as one line, its parts `separator` between; '' when it has none. */
export const detailText = (
  action: string,
  detail: unknown,
  words: Words,
  separator = ', ',
): string => detailParts(action, detail, words).join(separator);

/**
 * `detail` as lines of at most `width` characters, broken between parts (never inside a date
 * or a word); a part longer than `width` is a line of its own (the table wraps it).
 */
export function detailLines(
  action: string,
  detail: unknown,
  width: number,
  words: Words,
): string[] {
  const lines: string[] = [];
  for (const part of detailParts(action, detail, words)) {
    const last = lines.at(-1);
    // Room for the ", " and for the "," that ends the line if another part follows.
    if (last !== undefined && last.length + 2 + part.length + 1 <= width) {
      lines[lines.length - 1] = `${last}, ${part}`;
    } else {
      if (last !== undefined) lines[lines.length - 1] = `${last},`;
      lines.push(part);
    }
  }
  return lines;
}
