/**
 * A history entry's `detail` (DESIGN.md §4.6) in words for the History panel: times as dates,
 * spans as durations (by the panel's formatters, {@link Words}: format.ts's `dateTimeMs` and
 * `duration`), a revert target as what it restores, ids last — never raw epoch ms or JSON.
 * `for 10 min 0 s · until 2026-12-01 20:15:03.466`. Imports nothing, so the root's tests run it.
 */

/** How the panel writes a moment and a span, both in ms. */
export interface Words {
  date: (ms: number) => string;
  span: (ms: number) => string;
}

/** Keys whose number is a Redis-clock time (ms), shown as a date. */
const DATE_KEYS = new Set(['until', 'setAt', 'at']);

/** How a key reads; any other key as it is. */
const LABELS: Record<string, string> = {
  forMs: 'for',
  revertTo: 'reverts to',
  setAt: 'set at',
  setBy: 'set by',
  actor: 'set by',
  resetAttempts: 'reset attempts',
};

type Kind = 'limit' | 'pause' | undefined;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The override kind a detail is about: its `kind`, else the action's own (setLimit: limit). */
function kindOf(action: string, detail: Record<string, unknown>): Kind {
  if (detail.kind === 'limit' || detail.kind === 'pause') return detail.kind;
  if (action === 'setLimit' || action === 'clearLimit') return 'limit';
  if (action === 'pause' || action === 'resume') return 'pause';
  return undefined;
}

/** JSON on one line, cut to `max` characters (with …). */
function preview(value: unknown, max: number): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** One value of `key` in words. */
function valueText(key: string, value: unknown, kind: Kind, words: Words): string {
  if (key === 'revertTo' && typeof value === 'boolean') return value ? 'paused' : 'running';
  if (value === null || value === undefined) {
    return key === 'revertTo' && kind === 'limit' ? 'no limit' : 'none';
  }
  if (typeof value === 'number' && DATE_KEYS.has(key)) return words.date(value);
  if (typeof value === 'number' && key.endsWith('Ms')) return words.span(value);
  if (isObject(value)) {
    const inner = pairs(value, kind, words);
    return inner === '' ? 'none' : `(${inner})`;
  }
  return typeof value === 'string' || typeof value !== 'object'
    ? String(value)
    : preview(value, 40);
}

/** The order keys are shown in (the rest after; Redis writes an object's keys in any order). */
const ORDER = ['kind', 'step', 'mode', 'state', 'forMs', 'until', 'revertTo', 'setAt', 'setBy'];
const rank = (key: string): number => {
  const i = ORDER.indexOf(key);
  return key === 'cancelled' ? ORDER.length + 1 : i === -1 ? ORDER.length : i;
};

/** `key value` pairs in {@link ORDER}, ` · ` between; ids last, with how many more `idCount` says. */
function pairs(detail: Record<string, unknown>, kind: Kind, words: Words): string {
  const { ids, idCount, ...rest } = detail;
  const sorted = Object.entries(rest).sort(([a], [b]) => rank(a) - rank(b));
  const parts = sorted.map(
    ([key, value]) => `${LABELS[key] ?? key} ${valueText(key, value, kind, words)}`,
  );
  if (Array.isArray(ids)) {
    const more =
      typeof idCount === 'number' && idCount > ids.length ? ` +${idCount - ids.length}` : '';
    parts.push(`ids ${ids.join(' ')}${more}`);
  }
  return parts.join(' · ');
}

/** `detail` of an entry of `action` in a line, in `words`; '' when there is none. */
export function detailText(action: string, detail: unknown, words: Words): string {
  if (detail === null || detail === undefined) return '';
  if (!isObject(detail)) return preview(detail, 80);
  return pairs(detail, kindOf(action, detail), words);
}
