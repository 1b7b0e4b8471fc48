/** Number and time formatting, and the colours of group states. */

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

// A group's state in the words every surface uses: the rule is shared with the CLI.
export {
  STANDING_LABEL,
  STANDING_MEANS,
  type Standing,
  standing,
} from '../../src/cli/groupStanding';

// Characters that would make an id look like another, as markers (`acme⟨ZWSP⟩`): the rule is
// shared with the CLI.
export { type IdPart, idParts, visibleId } from '../../src/cli/visibleText';

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

/**
 * A JSON value on one line, cut to `max` characters (with …). Job lists ask the server for theirs
 * (`payloadPreview`, `resultPreview`, `progressPreview`), so as not to read whole values.
 */
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
