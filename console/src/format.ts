/** Number and time formatting, and the colours of group states. */
import type { GroupRowFragment, GroupState } from './gql/graphql';

const integer = new Intl.NumberFormat('en-US');
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
const rate = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/** 12,345 */
export const n = (value: number): string => integer.format(value);
/** 12.3K (exact below 10,000) */
export const short = (value: number): string =>
  value < 10_000 ? integer.format(value) : compact.format(value);
/** 3.5 */
export const perSecond = (value: number): string => rate.format(value);

/** 14:03:07 */
export const clock = (ms: number): string =>
  new Date(ms).toLocaleTimeString('en-GB', { hour12: false });

/** 14:03:07.412 — the moment a snapshot was read. */
export const clockMs = (ms: number): string => {
  const d = new Date(ms);
  return `${clock(ms)}.${String(d.getMilliseconds()).padStart(3, '0')}`;
};

/**
 * What the console calls a group's standing, in the words of queue dashboards (bull-board,
 * Sidekiq, Oban): the API's state, with SATURATED split into "at limit" and "parked" (limit 0,
 * or below the work in flight), and IDLE — nothing waiting — into "busy" (jobs in flight) and
 * "empty" (nothing at all), so a group that is working is never called idle.
 */
export type Standing =
  | 'ready'
  | 'rejoining'
  | 'limit'
  | 'parked'
  | 'paused'
  | 'busy'
  | 'empty'
  | 'rated';

/**
 * A group's standing. READY off the ring is a group whose rate window reopened and that no claim
 * has put back yet (DESIGN.md §3 "Rate limits"): "re-joining", so "ready" stays exactly "on the
 * ring drawn beside it".
 */
export function standing(
  g: Pick<GroupRowFragment, 'state' | 'limit' | 'active' | 'onRing'>,
): Standing {
  switch (g.state as GroupState) {
    case 'READY':
      return g.onRing ? 'ready' : 'rejoining';
    case 'PAUSED':
      return 'paused';
    case 'SATURATED':
      return g.limit !== null && (g.limit === 0 || g.active > g.limit) ? 'parked' : 'limit';
    case 'IDLE':
      return g.active > 0 ? 'busy' : 'empty';
    case 'RATE_LIMITED':
      return 'rated';
  }
}

export const STANDING_LABEL: Record<Standing, string> = {
  ready: 'ready',
  rejoining: 're-joining',
  limit: 'at limit',
  parked: 'parked',
  paused: 'paused',
  busy: 'busy',
  empty: 'empty',
  rated: 'rate-limited',
};

/** What each standing means, for a tooltip. */
export const STANDING_MEANS: Record<Standing, string> = {
  ready: 'on the ring, waiting for its turn',
  rejoining:
    'its rate window has reopened: off the ring until the next claim puts it back (and may serve it at once)',
  limit: 'as many jobs in flight as its limit allows: no turn until one finishes',
  parked: 'limit 0, or lowered below the jobs in flight: no turn until several finish',
  paused: 'paused by an operator: no turn until resumed',
  busy: 'jobs in flight, nothing waiting: no turn needed',
  empty: 'nothing waiting and nothing in flight',
  rated: 'its rate limit is used up for this window: no turn until the window reopens',
};

/**
 * Characters that print as nothing, or as a look-alike of a plain one: format characters (BOM
 * U+FEFF, zero-width space U+200B, joiners, bidi controls), controls, and spaces other than
 * U+0020. A group id holding one must not look like the id without it.
 */
const INVISIBLE =
  /[\p{Cf}\p{Cc}\p{Zl}\p{Zp}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u115F\u1160\u3164\uFFA0\u2800]/u;

const NAMES: Record<string, string> = {
  '\uFEFF': 'BOM',
  '\u200B': 'ZWSP',
  '\u200C': 'ZWNJ',
  '\u200D': 'ZWJ',
  '\u2060': 'WJ',
  '\u00A0': 'NBSP',
  '\u00AD': 'SHY',
  '\t': 'TAB',
};

/** One piece of an id as shown: plain text, or a marker standing for one invisible character. */
export type IdPart = { text: string } | { mark: string; title: string };

const codePoint = (ch: string): string =>
  `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Split `id` into plain text and markers: each invisible character becomes a marker (`BOM`,
 * `ZWSP`, else its code point), and so does a space at either end.
 */
export function idParts(id: string): IdPart[] {
  const parts: IdPart[] = [];
  let text = '';
  const chars = [...id];
  chars.forEach((ch, i) => {
    const edgeSpace = ch === ' ' && (i === 0 || i === chars.length - 1);
    if (INVISIBLE.test(ch) || edgeSpace) {
      if (text) parts.push({ text });
      text = '';
      const name = edgeSpace ? 'SP' : (NAMES[ch] ?? codePoint(ch));
      parts.push({ mark: name, title: `${codePoint(ch)} (invisible) in the id` });
    } else {
      text += ch;
    }
  });
  if (text) parts.push({ text });
  return parts;
}

/** `id` with each invisible character written as `⟨NAME⟩`, for titles and plain text. */
export const visibleId = (id: string): string =>
  idParts(id)
    .map((p) => ('text' in p ? p.text : `⟨${p.mark}⟩`))
    .join('');

/** 2026-12-01 10:37:41.412 — a job's moments, to the millisecond (this browser's time zone). */
export const dateTimeMs = (ms: number): string => {
  const d = new Date(ms);
  const day = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  return `${day} ${clockMs(ms)}`;
};

/** A span (ms) in words: 850 ms, 4.2 s, 3 min 10 s, 2 h 5 min, 3 d 4 h. Negative reads as 0. */
export function duration(ms: number): string {
  const t = Math.max(0, ms);
  if (t < 1_000) return `${Math.round(t)} ms`;
  if (t < 60_000) return `${(t / 1_000).toFixed(t < 10_000 ? 1 : 0)} s`;
  const s = Math.floor(t / 1_000);
  if (s < 3_600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3_600)} h ${Math.floor((s % 3_600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3_600)} h`;
}

/** `at` relative to `now` (ms): "in 4.2 s", "3 min 10 s ago". */
export const relative = (at: number, now: number): string =>
  at >= now ? `in ${duration(at - now)}` : `${duration(now - at)} ago`;

/**
 * A moment that has happened (enqueued, claimed, died), relative to `now` (ms): "3.2 s ago", or
 * "just now" when the clocks' estimate puts it a little ahead.
 */
export const ago = (at: number, now: number): string =>
  at > now ? 'just now' : `${duration(now - at)} ago`;

/** A payload on one line, cut to `max` characters (with …): what a list row shows of it. */
export function preview(payload: unknown, max = 80): string {
  const text = payload === undefined ? 'null' : JSON.stringify(payload);
  const flat = (text ?? 'null').replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A payload as indented JSON, for the job detail. */
export const prettyJson = (payload: unknown): string =>
  JSON.stringify(payload === undefined ? null : payload, null, 2) ?? 'null';

/** A GraphQL `DateTime` (RFC 3339 text) as ms; null stays null. */
export const ms = (value: unknown): number | null =>
  value === null || value === undefined ? null : Date.parse(String(value));
