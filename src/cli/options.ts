/**
 * Parsers of the CLI's option and argument values, for commander's `argParser`: a value that
 * does not parse, or is out of its range ({@link Bounds}, the server's), is a usage error
 * (exit 1) saying what to change it to: `change weight: must be a whole number 1..1,000`.
 */
import { InvalidArgumentError } from 'commander';
import parseDuration from 'parse-duration';
import { DECIMAL_DIGITS, DECIMAL_DIGITS_ONLY } from '../decimalDigits.js';
import { type Bound, withinBound } from './bounds.js';
import {
  STANDING_LABEL,
  type StandingOf,
  standing,
  standingNamed,
  wordKey,
} from './groupStanding.js';
import { durationText } from './output.js';

/** 1000000 → "1,000,000": ranges as people read them. */
const grouped = (n: number): string => n.toLocaleString('en-US');

/** A range as its message gives it: "1..1,000", "100ms..1h". */
const rangeText = ({ min, max }: Bound, show: (n: number) => string): string =>
  `${show(min)}..${show(max)}`;

/**
 * A whole number within `bound` (`<limit>`, `--first`, `--timeout`, …), written in plain decimal
 * digits only, the server's configuration's one rule ({@link DECIMAL_DIGITS}): ` 3 `, `+3`,
 * `3.0`, `1e3`, `0x10` are refused, as `PORT=" 3 "` is. `name` is the argument as the user wrote
 * it, named by the message (a usage error, exit 1): `change limit: must be a whole number
 * 0..1,000,000, not " 3 ": in plain decimal digits (no space, …)`.
 */
export function integer(name: string, bound: Bound): (value: string) => number {
  return (value) => {
    const must = `change ${name}: must be a whole number ${integerRange(bound)}, not "${value}"`;
    if (!DECIMAL_DIGITS.test(value)) {
      throw new InvalidArgumentError(`${must}: ${DECIMAL_DIGITS_ONLY}`);
    }
    const n = Number(value);
    if (!withinBound(n, bound)) {
      throw new InvalidArgumentError(must);
    }
    return n;
  };
}

/**
 * The units a duration may have: lower case only, one meaning each. parse-duration reads any
 * case and more units ("1M" is a minute to it, "1mo" a month), so a month meant as `1M` would
 * silently become a minute: those are refused instead.
 */
const UNITS: readonly string[] = ['ms', 's', 'm', 'h', 'd'];
/** A number and its unit. */
const PIECE = `\\d*\\.?\\d+(?:${UNITS.join('|')})`;
/**
 * Pieces, as often as needed, spaces only between them: `10m`, `1h30m`, `1h 30m`, `1.5s`; not
 * ` 10m`, `10m ` (a space around, refused as around a whole number) nor `10 m`.
 */
const DURATION = new RegExp(`^${PIECE}(?:\\s*${PIECE})*$`);
/** The pieces of a duration as written: numbers (dots included), words, spaces, anything else. */
const TOKENS = /([\d.]+)|([A-Za-z]+)|(\s+)|([^\d.A-Za-z\s]+)/g;
/** A number as a duration may have it: `10`, `1.5`, `.5`. */
const NUMBER = /^\d*\.?\d+$/;
/** The units a month would be meant by, which {@link UNITS} leaves out on purpose. */
const MONTHISH = /^(?:M|mo)/;

/**
 * Why `value` is no duration, as the first thing wrong in it: a piece that has no place in one
 * (`1h-30m`, `1h,30m`), a number that is none (`1.5.5s`), a number without a unit (`10`), a
 * unit without a number, or a unit not in {@link UNITS} (the month hint only for `M`/`mo`).
 */
function durationProblem(value: string): string {
  if (value.trim() !== value && value.trim() !== '') {
    return `a duration has no space around it: write "${value.trim()}", not "${value}"`;
  }
  if (/[\d.]\s+[A-Za-z]/.test(value)) {
    return `a unit goes right after its number (10m, 1h 30m), not "${value}"`;
  }
  const tokens = [...value.matchAll(TOKENS)].filter(([, , , space]) => space === undefined);
  if (!tokens.some(([, number]) => number !== undefined)) {
    return `expected a duration such as 90s, 10m, 2h or 1h30m, not "${value}"`;
  }
  for (const [i, [, number, word, , other]] of tokens.entries()) {
    if (other !== undefined) {
      return `"${other}" has no place in a duration (write 1h30m or 1h 30m), not "${value}"`;
    }
    if (number !== undefined && !NUMBER.test(number)) {
      return `"${number}" is not a number (one decimal point at most), not "${value}"`;
    }
    if (number !== undefined && tokens[i + 1]?.[2] === undefined) {
      return `a duration needs a unit, such as 10m, 30s or 500ms, not "${value}"`;
    }
    if (word !== undefined && tokens[i - 1]?.[1] === undefined) {
      return `"${word}" needs a number before it, such as 10m or 1h30m, not "${value}"`;
    }
    if (word !== undefined && !UNITS.includes(word)) {
      const hint = MONTHISH.test(word) ? ' (no M or mo: a minute or a month?)' : '';
      return `"${word}" is no unit here: a duration's units are ms, s, m (minutes), h and d, in lower case${hint}, not "${value}"`;
    }
  }
  return `expected a duration such as 90s, 10m, 2h or 1h30m, not "${value}"`;
}

/**
 * A duration with its unit (`--for 10m`, `90s`, `1h30m`, `1500ms`) → whole ms within `bound`;
 * `name` is the option (`--for`). Units: ms, s, m (minutes), h, d, lower case. Refused (usage
 * errors, saying what is wrong, {@link durationProblem}): a number without a unit (`10` would
 * be ms), any other unit or case (`1M`, `1mo`, `1S`, `2w`), anything but numbers, units and
 * spaces between pieces (`1h-30m`, `1e3ms`, `1.5.5s`), a space around the value (` 10m`, as
 * around a whole number, {@link integer}) or inside a piece (`10 m`), a fraction of a ms, a
 * value outside `bound`.
 */
export function duration(name: string, bound: Bound): (value: string) => number {
  return (value) => {
    if (!DURATION.test(value)) throw new InvalidArgumentError(durationProblem(value));
    const ms = parseDuration(value);
    if (ms === null || ms === undefined || !Number.isFinite(ms) || !Number.isInteger(ms)) {
      throw new InvalidArgumentError(
        `expected a duration such as 90s, 10m, 2h or 1h30m (whole ms), not "${value}"`,
      );
    }
    if (ms < bound.min || ms > bound.max) {
      throw new InvalidArgumentError(
        `change ${name}: must be ${durationRange(bound)}, not "${value}"`,
      );
    }
    return ms;
  };
}

/** A whole-number range as help and messages give it: `1..1,000`. */
export const integerRange = (bound: Bound): string => rangeText(bound, grouped);

/** A duration range as help and messages give it: `1ms..30d`, `100ms..1h`. */
export const durationRange = (bound: Bound): string => rangeText(bound, durationText);

/**
 * The group states of the API (`Group.state`, DESIGN.md §4.2; RATE_LIMITED is the rate
 * limit's), which `groups --state` takes beside the words the tables show.
 */
export const GROUP_STATES = ['READY', 'SATURATED', 'PAUSED', 'IDLE', 'RATE_LIMITED'] as const;

/** The words the tables show, in the order `--state`'s help gives them. */
export const STATE_WORDS: readonly string[] = Object.values(STANDING_LABEL);

/** What `groups --state` keeps (DESIGN.md §6, "CLI"): one of the API's states, or one word. */
export interface StateFilter {
  /** As the output names it: the API's value (`SATURATED`) or the word (`at limit`). */
  readonly name: string;
  readonly keeps: (group: StandingOf) => boolean;
}

/**
 * `--state`'s value: a word the tables show (`at limit`, `at-limit`, any case) or a state of the
 * API (any case). READY as the API spells it is the API's (ready and re-joining); `ready`, the
 * word, only the groups on the ring.
 */
export function groupState(value: string): StateFilter {
  const exact = GROUP_STATES.find((s) => s === value);
  const word = exact === undefined ? standingNamed(value) : undefined;
  if (word !== undefined) {
    return { name: STANDING_LABEL[word], keeps: (group) => standing(group) === word };
  }
  const state = exact ?? GROUP_STATES.find((s) => wordKey(s) === wordKey(value));
  if (state === undefined) {
    throw new InvalidArgumentError(
      `expected a state as tables show it (${STATE_WORDS.join(', ')}) or as the API names it (${GROUP_STATES.join(', ')}), not "${value}"`,
    );
  }
  return { name: state, keeps: (group) => group.state === state };
}

/** A GraphQL endpoint: an http(s) URL. */
export function endpoint(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError(
      `expected an http(s) URL such as http://127.0.0.1:4000/graphql, not "${value}"`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError(`expected an http:// or https:// URL, not "${value}"`);
  }
  return url.href;
}
