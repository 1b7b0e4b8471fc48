/**
 * Parsers of the CLI's option and argument values, for commander's `argParser`: a value that
 * does not parse is a usage error (exit 1) naming the option and what it accepts.
 */
import { InvalidArgumentError } from 'commander';
import parseDuration from 'parse-duration';

/** A whole number from `min` to `max` (`--first`, a limit). */
export function integer(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
      throw new InvalidArgumentError(`expected a whole number ${range}, not "${value}"`);
    }
    return n;
  };
}

/**
 * A duration (`--for 10m`, `90s`, `1h30m`, `1500ms`; parse-duration's units, a bare number
 * is ms) → whole ms, at least 1.
 */
export function duration(value: string): number {
  const ms = parseDuration(value);
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 1 || !Number.isInteger(ms)) {
    throw new InvalidArgumentError(
      `expected a duration such as 90s, 10m, 2h or 1h30m (whole ms, at least 1ms), not "${value}"`,
    );
  }
  return ms;
}

/**
 * The group states `groups --state` filters by (`Group.state`, DESIGN.md §4.2; RATE_LIMITED
 * is the rate limit's).
 */
export const GROUP_STATES = ['READY', 'SATURATED', 'PAUSED', 'IDLE', 'RATE_LIMITED'] as const;
export type GroupStateName = (typeof GROUP_STATES)[number];

/** A group state, any case → upper case. */
export function groupState(value: string): GroupStateName {
  const state = value.toUpperCase() as GroupStateName;
  if (!GROUP_STATES.includes(state)) {
    throw new InvalidArgumentError(`expected one of ${GROUP_STATES.join(', ')}, not "${value}"`);
  }
  return state;
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
