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
 * A duration with its unit (`--for 10m`, `90s`, `1h30m`, `1500ms`; parse-duration's units) →
 * whole ms, at least 1. A number without a unit (`10`) is refused: it would be read as ms.
 */
export function duration(value: string): number {
  return durationAtLeast(1)(value);
}

/**
 * A duration as `duration` reads it, of at least `minMs` ms (`top --interval`: 100ms, so that a
 * slip such as `--interval 1` cannot redraw, and read the server, a thousand times a second).
 */
export function durationAtLeast(minMs: number): (value: string) => number {
  return (value) => {
    // Every number needs its unit: `10`, `1h 30` (a bare 30 is ms) are refused.
    if (/\d/.test(value.replace(/\d*\.?\d+\s*[a-zµμ]+/gi, ''))) {
      throw new InvalidArgumentError(
        `a duration needs a unit, such as 10m, 30s or 500ms, not "${value}"`,
      );
    }
    const ms = parseDuration(value);
    if (ms === null || ms === undefined || !Number.isFinite(ms) || !Number.isInteger(ms)) {
      throw new InvalidArgumentError(
        `expected a duration such as 90s, 10m, 2h or 1h30m (whole ms), not "${value}"`,
      );
    }
    if (ms < minMs) {
      throw new InvalidArgumentError(`expected at least ${minMs}ms, not "${value}"`);
    }
    return ms;
  };
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
