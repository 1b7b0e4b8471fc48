/**
 * The one place configuration is read (DESIGN.md §6): environment variables, validated, with
 * messages that name the variable, its value (tokens and passwords masked) and what it accepts,
 * all on one line. Nothing else reads `process.env`.
 */
import { z } from 'zod';
import type { Role } from '../context.js';
import { DECIMAL_DIGITS, DECIMAL_DIGITS_ONLY } from '../decimalDigits.js';
import { Defaults, isKeyPrefix, KEY_PREFIX_RULE, Limits, TIMER_ACTOR } from '../lanes/internal.js';
import { type Lookalike, lookalikes } from '../lookalikes.js';
import { DEFAULT_MAX_REREADS_PER_SECOND, DEFAULT_MAX_WATCHES } from '../pubsub/index.js';
import { DEFAULT_MAX_CONNECTIONS_PER_CLIENT } from './connectionLimits.js';
import { isLoopback } from './loopback.js';
import { maskUrl, setting } from './startupError.js';

const ROLES = ['read', 'worker', 'admin'] as const;

/**
 * The CLI's variables (DESIGN.md §6, "CLI"): read by `ringmaster`, not by the server, but set
 * beside the server's in many a shell, so never taken for a misspelling.
 */
const CLIENT_VARIABLES: readonly string[] = [
  'RINGMASTER_URL',
  'RINGMASTER_TOKEN',
  'RINGMASTER_QUEUE',
];

/** Tokens shorter than this are refused (characters). */
const MIN_TOKEN_LENGTH = 16;

// Messages are causes only: `loadConfig` puts `NAME=value: ` before each.

interface WholeNumberRule {
  readonly fallback: number;
  readonly min: number;
  readonly max: number;
  /** What a value must be, the cause of a refusal (`must be a port number (0 to 65535)`). */
  readonly must: string;
  /** The cause of a value below `min` (default `must`). */
  readonly belowMin?: string;
  /** The cause of a value above `max` (default `must`). */
  readonly aboveMax?: string;
}

/**
 * A whole number from `min` to `max`, written in plain decimal digits ({@link DECIMAL_DIGITS}),
 * or `fallback` when unset. Anything else is refused with `must`, saying digits are needed.
 */
const wholeNumber = (rule: WholeNumberRule) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return rule.fallback;
      const refuse = (message: string) => {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      };
      if (!DECIMAL_DIGITS.test(value)) {
        return refuse(`${rule.must}, ${DECIMAL_DIGITS_ONLY}`);
      }
      const number = Number(value);
      if (number < rule.min) return refuse(rule.belowMin ?? rule.must);
      if (number > rule.max) return refuse(rule.aboveMax ?? rule.must);
      return number;
    });

/** `METRICS_TOP_GROUPS` left unset: the top 20 groups of each queue by each ranking. */
export const DEFAULT_METRICS_TOP_GROUPS = 20;

/** A period in milliseconds, 1 ms to one day. */
const ms = (fallback: number) =>
  wholeNumber({
    fallback,
    min: 1,
    max: 86_400_000,
    must: 'must be a whole number of milliseconds',
    belowMin: 'must be at least 1 (ms)',
    aboveMax: 'must be at most 86400000 (ms, one day)',
  });

/** A whole number from 1 to `max` (a bound on how many of something). */
const count = (fallback: number, max: number) =>
  wholeNumber({ fallback, min: 1, max, must: `must be a whole number from 1 to ${max}` });

const boolean = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

/** What is written before a token's colon may be shown when it cannot be a token itself. */
const ROLE_LIKE = /^[A-Za-z_-]{1,12}$/;

function shownRole(role: string): string {
  return ROLE_LIKE.test(role) ? JSON.stringify(role) : '(masked)';
}

/** A token's name (`name=role:token`): what the steering history records as its actor. */
const TOKEN_NAME = /^[A-Za-z0-9._@-]{1,64}$/;

/**
 * Names the history already records for someone else — an unnamed token's role, the timed
 * overrides' reverts, the engine's default — so a token may not take them (DESIGN.md §4.6).
 */
const RESERVED_NAMES: readonly string[] = [...ROLES, TIMER_ACTOR, Defaults.actor];

/**
 * `role:token,…` or `name=role:token,…` → token → role, and token → name for the named ones.
 * Tokens must be at least 16 characters and may hold any character but a comma (a colon too:
 * everything after the first colon is the token). A name (1 to 64 of A-Z a-z 0-9 . _ @ -) is
 * written before the role with `=`: the text before the first colon is the role, or
 * `name=role`, so neither can be mistaken for part of the token. Each mistake is named by its
 * entry's position (1-based), never by its token.
 */
const authTokens = z
  .string()
  .optional()
  .transform((value, ctx) => {
    const tokens = new Map<string, { role: Role; entry: number; name: string | undefined }>();
    const named = new Map<string, number>();
    if (value === undefined || value.trim() === '') return null;
    let valid = true;
    const problem = (message: string) => {
      valid = false;
      ctx.addIssue({ code: 'custom', message });
    };
    for (const [i, text] of value.split(',').entries()) {
      const entry = i + 1;
      const at = text.indexOf(':');
      const head = text.slice(0, at).trim();
      const eq = head.indexOf('=');
      const name = eq < 0 ? undefined : head.slice(0, eq).trim();
      const role = (eq < 0 ? head : head.slice(eq + 1).trim()) as Role;
      const token = text.slice(at + 1).trim();
      const first = tokens.get(token);
      if (text.trim() === '') problem(`entry ${entry} is empty (a stray comma?)`);
      else if (at < 0) problem(`entry ${entry} has no colon: each entry is role:token`);
      else if (name !== undefined && !TOKEN_NAME.test(name)) {
        problem(
          `entry ${entry}: the name before '=' must be 1 to 64 of A-Z a-z 0-9 . _ @ - (name=role:token)`,
        );
      } else if (name !== undefined && RESERVED_NAMES.includes(name)) {
        problem(
          `entry ${entry}: the name ${name} is what the history records for ${ROLES.includes(name as Role) ? 'an unnamed token of that role' : name === TIMER_ACTOR ? 'a timed override reverting' : 'the engine'}; choose another`,
        );
      } else if (name !== undefined && named.has(name)) {
        problem(
          `entries ${named.get(name)} and ${entry} have the same name ${name}: the history could not tell them apart`,
        );
      } else if (!ROLES.includes(role)) {
        problem(`entry ${entry}: role ${shownRole(role)} is not read, worker or admin`);
      } else if (token.length < MIN_TOKEN_LENGTH) {
        problem(
          `entry ${entry} (${role}): the token has ${token.length} character${token.length === 1 ? '' : 's'}, ${MIN_TOKEN_LENGTH} or more are needed`,
        );
      } else if (first) {
        // One token, two roles: whichever won would be a surprise to someone.
        problem(
          `entries ${first.entry} (${first.role}) and ${entry} (${role}) hold the same token: give each role its own`,
        );
      } else {
        tokens.set(token, { role, entry, name });
        if (name !== undefined) named.set(name, entry);
      }
    }
    if (!valid) return z.NEVER;
    return {
      roles: new Map([...tokens].map(([token, { role }]) => [token, role])),
      names: new Map(
        [...tokens].flatMap(([token, { name }]) => (name === undefined ? [] : [[token, name]])),
      ) as Map<string, string>,
    };
  });

/** AUTH_TOKENS as shown in a message: roles kept where they are roles, every token masked. */
function maskTokens(value: string): string {
  return value
    .split(',')
    .map((text) => {
      const at = text.indexOf(':');
      if (at < 0) return text.trim() === '' ? '' : '****';
      const head = text.slice(0, at).trim();
      const eq = head.indexOf('=');
      const name = eq < 0 ? '' : head.slice(0, eq).trim();
      const role = eq < 0 ? head : head.slice(eq + 1).trim();
      const shownName = eq < 0 ? '' : `${TOKEN_NAME.test(name) ? name : '****'}=`;
      return `${shownName}${ROLE_LIKE.test(role) ? role : '****'}:****`;
    })
    .join(',');
}

/** A variable's value as a message may show it. */
export function shown(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  // Nothing to hide in a blank value, and `"  "` says what was given.
  if (value.trim() === '') return value;
  if (name === 'AUTH_TOKENS') return maskTokens(value);
  if (name === 'METRICS_TOKEN') return '****';
  if (name === 'REDIS_URL') return maskUrl(value);
  if (name === 'REDIS_CLUSTER_NODES') return value.split(',').map(maskUrl).join(',');
  return value;
}

/**
 * The query parameters REDIS_URL may carry. ioredis copies every query parameter into its
 * connection options (`?connectTimeout=`, `?keyPrefix=`, `?enableOfflineQueue=`, …), as text,
 * overriding what the server set; these four are the ones that only say where and as whom to
 * connect.
 */
const URL_PARAMETERS: readonly string[] = ['db', 'password', 'username', 'family'];

/** A host name or IPv4 address as written in a URL (an IPv6 address is bracketed). */
const HOST_NAME = /^[A-Za-z0-9._-]+$/;

/**
 * Why `value` is not a Redis URL the server can use as written, or null when it is:
 * `redis://` or `rediss://`; a host; a port from 1 to 65535 (or none: 6379); a database, in the
 * path (`/2`) or `?db=2` (the same if both), in plain decimal digits; no query parameter but
 * {@link URL_PARAMETERS}. Checked before anything connects: ioredis reads a database `abc` as
 * NaN (SELECT NaN), `1.5` and `3x` as 1 and 3 (parseInt), and its URL parse throws a bare
 * "Invalid URL" for a port out of range. Whether the database exists is Redis' to say, at
 * connect (exit 3).
 * @param setting the variable the URL is written in, named where the cause says what to change
 *   (`REDIS_CLUSTER_NODES` for a node's URL)
 * @returns a cause (one line, no value: the caller names the variable and its masked value)
 */
export function redisUrlProblem(value: string, setting = 'REDIS_URL'): string | null {
  const scheme = /^rediss?:\/\//.exec(value)?.[0];
  if (scheme === undefined || value.length === scheme.length) {
    return 'must start with redis:// or rediss://, then the host';
  }
  // The authority as WHATWG URL (ioredis' parse) cuts it: up to the first `/`, `?` or `#`,
  // its user information up to the last `@`.
  const rest = value.slice(scheme.length);
  const end = rest.search(/[/?#]/);
  const authority = end < 0 ? rest : rest.slice(0, end);
  // An `@` after the cut (not in the query) was meant to end a password that a `/` or `#` cut
  // short; nothing of it is echoed, since the pieces would be the password's.
  const tail = end < 0 ? '' : rest.slice(end);
  if (!tail.startsWith('?') && (tail.split('?')[0] ?? '').includes('@')) {
    return 'has an @ after a / or #: a password holding /, ? or # is written percent-encoded (%2F, %3F, %23)';
  }
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const bracketed = hostPort.startsWith('[');
  const close = bracketed ? hostPort.indexOf(']') : -1;
  if (bracketed && close < 0) {
    return 'the IPv6 address has no closing ] (write it as redis://[::1]:6379)';
  }
  const host = bracketed ? hostPort.slice(0, close + 1) : (hostPort.split(':')[0] ?? '');
  const afterHost = hostPort.slice(host.length);
  if (host === '') return 'names no host: write redis://host:port (or redis://:password@host:port)';
  if (!bracketed && !HOST_NAME.test(host)) {
    return `the host ${JSON.stringify(host)} is not a host name or address (A-Z a-z 0-9 . _ -; IPv6 in [ ])`;
  }
  if (afterHost !== '' && !afterHost.startsWith(':')) {
    return `after the host comes ${JSON.stringify(afterHost)}: write host:port`;
  }
  const port = afterHost.slice(1);
  if (port !== '' && !DECIMAL_DIGITS.test(port)) {
    return `the port ${JSON.stringify(port)} is not a number: a port is 1 to 65535, in decimal digits`;
  }
  if (port !== '' && (Number(port) < 1 || Number(port) > 65_535)) {
    return `the port ${port} is out of range: a port is 1 to 65535`;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL (write redis://[user:password@]host[:port][/database])';
  }
  if (url.hash !== '') return 'has a #fragment, which means nothing to Redis: remove it';
  const digitsOnly = 'a database is a whole number from 0, in plain decimal digits';
  const path = url.pathname === '/' ? '' : url.pathname.slice(1);
  if (path !== '' && !DECIMAL_DIGITS.test(path)) {
    return `the database ${JSON.stringify(path)} (the path after the port) is not a number: ${digitsOnly} (redis://host:6379/0)`;
  }
  const seen = new Set<string>();
  for (const name of url.searchParams.keys()) {
    if (seen.has(name)) return `gives ?${name}= more than once: give it once`;
    seen.add(name);
    if (name === 'keyPrefix') {
      const prefix = url.searchParams.get(name) ?? '';
      const stem = prefix.replace(/:+$/, '');
      const example = isKeyPrefix(stem)
        ? ` (KEY_PREFIX=${stem} puts every key under ${stem}:)`
        : '';
      return `?keyPrefix= sets the ioredis option keyPrefix=${JSON.stringify(prefix)}, which ioredis does not apply to the lane and job keys Ringmaster's scripts build, so jobs would be stranded; remove it from ${setting} and set KEY_PREFIX instead${example}`;
    }
    if (!URL_PARAMETERS.includes(name)) {
      return `?${JSON.stringify(name).slice(1, -1)}= is not a parameter the server takes in ${setting} (only ${URL_PARAMETERS.join(', ')}): ioredis would read it as a connection option`;
    }
  }
  const db = url.searchParams.get('db');
  if (db !== null && !DECIMAL_DIGITS.test(db)) {
    return `the database ${JSON.stringify(db)} (?db=) is not a number: ${digitsOnly} (?db=0)`;
  }
  if (db !== null && path !== '' && Number(db) !== Number(path)) {
    return `names database ${path} in its path and ${db} in ?db=: give one`;
  }
  const family = url.searchParams.get('family');
  if (family !== null && !['0', '4', '6'].includes(family)) {
    return `?family=${family} is not 4 (IPv4), 6 (IPv6) or 0 (either)`;
  }
  return null;
}

/** REDIS_URL: a Redis URL usable as written ({@link redisUrlProblem}), or unset. */
const redisUrl = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined) return undefined;
    const problem = redisUrlProblem(value);
    if (problem === null) return value;
    ctx.addIssue({ code: 'custom', message: problem });
    return z.NEVER;
  });

/** `host:port`, `[v6]:port`, or a redis:// / rediss:// URL of one node. */
const NODE_ENTRY = /^(?:rediss?:\/\/[^\s/]+\/?|(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):\d{1,5})$/;

/**
 * `host:port,…` → the seed nodes of a Redis Cluster, as written (trimmed): `host:port` or a
 * `redis://` / `rediss://` URL with its user, password and TLS. Each mistake is named by its
 * entry's position (1-based); a URL entry is checked as REDIS_URL is ({@link redisUrlProblem}:
 * its port, host, `?keyPrefix=`, … named), then as one node (no database path, no parameters).
 */
const clusterNodes = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value.trim() === '') return undefined;
    const urls: string[] = [];
    for (const [i, raw] of value.split(',').entries()) {
      const entry = raw.trim();
      const port = Number(/:(\d+)\/?$/.exec(entry)?.[1] ?? 0);
      const urlProblem = /^rediss?:\/\//.test(entry)
        ? redisUrlProblem(entry, 'REDIS_CLUSTER_NODES')
        : null;
      if (entry === '') {
        ctx.addIssue({ code: 'custom', message: `entry ${i + 1} is empty (a stray comma?)` });
      } else if (urlProblem !== null) {
        ctx.addIssue({ code: 'custom', message: `entry ${i + 1}: ${urlProblem}` });
      } else if (!NODE_ENTRY.test(entry) || port < 1 || port > 65_535) {
        ctx.addIssue({
          code: 'custom',
          message: `entry ${i + 1} is not host:port (e.g. 10.0.0.5:7000) or a redis:// URL of one node`,
        });
      } else {
        urls.push(entry);
      }
    }
    return urls.length === value.split(',').length ? urls : z.NEVER;
  });

/** `https://a.example,http://localhost:5173` → origins (scheme, host and port; no path). */
const corsOrigins = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value.trim() === '') return [];
    const origins = value.split(',').map((o) => o.trim());
    for (const origin of origins) {
      if (!/^https?:\/\/[^/\s,]+$/.test(origin)) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be origins like https://admin.example.com, comma-separated',
        });
        return z.NEVER;
      }
    }
    return origins;
  });

const fields = z.object({
  PORT: wholeNumber({
    fallback: 4000,
    min: 0,
    max: 65_535,
    must: 'must be a port number (0 to 65535)',
  }),
  HOST: z.string().min(1, 'must not be empty').default('127.0.0.1'),
  REDIS_URL: redisUrl,
  REDIS_CLUSTER_NODES: clusterNodes,
  DATA_DIR: z.string().min(1, 'must not be empty').default('.data'),
  // The engine's `prefix` rule (validate.ts), stated once for both.
  KEY_PREFIX: z.string().refine(isKeyPrefix, KEY_PREFIX_RULE).default(Defaults.prefix),
  AUTH_TOKENS: authTokens,
  INTROSPECTION: boolean(true),
  CORS_ORIGINS: corsOrigins,
  REAP_INTERVAL_MS: ms(1000),
  // How long the reaper keeps an idle, unset group registered (DESIGN.md §3, "Forgetting groups").
  GROUP_GRACE_MS: wholeNumber({
    fallback: Defaults.groupGraceMs,
    min: 0,
    max: 2_592_000_000,
    must: 'must be a whole number of milliseconds from 0 to 2592000000 (30 days)',
  }),
  RESYNC_INTERVAL_MS: ms(5000),
  POLL_INTERVAL_MS: ms(1000),
  // Bounds on what subscribers may make the server hold (watches, rereads, connections).
  MAX_WATCHES: count(DEFAULT_MAX_WATCHES, 1_000_000),
  MAX_REREADS_PER_SECOND: count(DEFAULT_MAX_REREADS_PER_SECOND, 1_000_000),
  MAX_CONNECTIONS_PER_CLIENT: count(DEFAULT_MAX_CONNECTIONS_PER_CLIENT, 1_000_000),
  // GET /metrics' per-group series: the top N groups of each queue (DESIGN.md §4.7); 0 is off.
  METRICS_TOP_GROUPS: wholeNumber({
    fallback: DEFAULT_METRICS_TOP_GROUPS,
    min: 0,
    max: Limits.maxTopGroups,
    must: `must be a whole number from 0 (no per-group series) to ${Limits.maxTopGroups}`,
  }),
  // GET /metrics only (DESIGN.md §4.7); with AUTH_TOKENS, whose tokens may read it too.
  METRICS_TOKEN: z
    .string()
    .trim()
    .min(MIN_TOKEN_LENGTH, `must have ${MIN_TOKEN_LENGTH} or more characters`)
    .optional(),
  // The steering history's cap per queue (DESIGN.md §4.6); 0 records none.
  HISTORY_MAX_LEN: wholeNumber({
    fallback: Defaults.historyMaxLen,
    min: 0,
    max: 1_000_000,
    must: 'must be a whole number from 0 to 1000000',
  }),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty'], { error: 'must be json or pretty' }).default('json'),
  // The embedded Redis' port; unset (0 here): a free one at each start. Never 0 as given:
  // redis-server reads --port 0 as "no TCP at all".
  EMBEDDED_REDIS_PORT: wholeNumber({
    fallback: 0,
    min: 1,
    max: 65_535,
    must: 'must be a port number (1 to 65535)',
  }),
});

/**
 * Variables that may be set but blank (after trimming) and then mean what unset means: a blank
 * CORS_ORIGINS allows no other origin, as unset does, the stricter reading either way. Every
 * other variable set but blank is refused: a blank AUTH_TOKENS read as unset turned auth off
 * without a word, a blank PORT (read as 0) listened on a random port, a blank HISTORY_MAX_LEN
 * recorded no history, a blank REDIS_URL or REDIS_CLUSTER_NODES would start the embedded Redis
 * instead of the one meant — a blank value is most often a template whose variable is missing.
 */
const BLANK_MEANS_UNSET: readonly string[] = ['CORS_ORIGINS'];

/** What a variable set but blank is told to do instead. */
function blankCause(name: string): string {
  if (name === 'AUTH_TOKENS') {
    return 'is set but blank: unset it to run without auth (loopback only, every caller admin), or give tokens as role:token,…';
  }
  if (name === 'REDIS_URL' || name === 'REDIS_CLUSTER_NODES') {
    return 'is set but blank: unset it to run the embedded Redis, or name your Redis';
  }
  return 'is set but blank: unset it for the default, or give a value';
}

const schema = fields
  .refine((c) => c.AUTH_TOKENS !== null || isLoopback(c.HOST, 'bind'), {
    message: 'is not a loopback address: set AUTH_TOKENS, or bind to 127.0.0.1',
    path: ['HOST'],
  })
  .refine((c) => c.METRICS_TOKEN === undefined || c.AUTH_TOKENS !== null, {
    message:
      'is set without AUTH_TOKENS: without them the server is loopback-only and /metrics needs no token; set AUTH_TOKENS too, or unset METRICS_TOKEN',
    path: ['METRICS_TOKEN'],
  })
  .refine(
    (c) =>
      c.METRICS_TOKEN === undefined ||
      c.AUTH_TOKENS === null ||
      !c.AUTH_TOKENS.roles.has(c.METRICS_TOKEN),
    {
      message:
        'is also a token of AUTH_TOKENS: it would open everything that entry opens, not only /metrics; give /metrics a token of its own',
      path: ['METRICS_TOKEN'],
    },
  )
  .refine(
    (c) =>
      c.EMBEDDED_REDIS_PORT === 0 ||
      (c.REDIS_URL === undefined && c.REDIS_CLUSTER_NODES === undefined),
    {
      message:
        'is set with REDIS_URL or REDIS_CLUSTER_NODES: the embedded Redis runs only when neither is set; unset one',
      path: ['EMBEDDED_REDIS_PORT'],
    },
  )
  .refine((c) => c.REDIS_URL === undefined || c.REDIS_CLUSTER_NODES === undefined, {
    message:
      'is set with REDIS_URL: set one (REDIS_URL naming any node of a cluster finds the cluster; REDIS_CLUSTER_NODES names several seeds)',
    path: ['REDIS_CLUSTER_NODES'],
  });

/** Validated settings (names as in DESIGN.md §6; times in ms). */
export interface Config {
  readonly port: number;
  readonly host: string;
  /**
   * One Redis, or any node of a Redis Cluster (detected). Unset, with `redisClusterNodes`
   * unset too: start an embedded redis-server with its append-only file in `dataDir`.
   */
  readonly redisUrl: string | undefined;
  /**
   * Seed nodes of a Redis Cluster (`REDIS_CLUSTER_NODES`), each `host:port` or a Redis URL, as
   * written; or undefined.
   */
  readonly redisClusterNodes: readonly string[] | undefined;
  readonly dataDir: string;
  readonly keyPrefix: string;
  /** token → role; null = auth off (loopback only). */
  readonly authTokens: ReadonlyMap<string, Role> | null;
  /** token → its name (`name=role:token`), for the tokens that have one (history actor). */
  readonly authTokenNames: ReadonlyMap<string, string>;
  /** The most entries a queue's steering history keeps (count; 0 = no history). */
  readonly historyMaxLen: number;
  readonly introspection: boolean;
  /** Origins allowed to call from a browser page of another origin; empty = same-origin only. */
  readonly corsOrigins: readonly string[];
  readonly reapIntervalMs: number;
  /** How long the reaper keeps an idle, unset group registered after its last call (ms). */
  readonly groupGraceMs: number;
  readonly resyncIntervalMs: number;
  readonly pollIntervalMs: number;
  /** Distinct rings, groups and jobs watched at once, server-wide; past it LIMIT_EXCEEDED. */
  readonly maxWatches: number;
  /** Safety re-reads and polls per second, all watches together. */
  readonly maxRereadsPerSecond: number;
  /** Open WebSockets and SSE streams together, per client address (auth off) or per token (auth on). */
  readonly maxConnectionsPerClient: number;
  readonly logLevel: string;
  /** `json` (one object a line, the default) or `pretty` (a readable line, for development). */
  readonly logFormat: 'json' | 'pretty';
  /** The embedded Redis' loopback port; undefined: a free one at each start. */
  readonly embeddedRedisPort: number | undefined;
  /**
   * Variables set that look like the server's or the CLI's but are not (a near miss, or an
   * unknown `RINGMASTER_*`), each with the one meant: logged once each at start.
   */
  readonly lookalikes: readonly Lookalike[];
  /** A token that may read `GET /metrics` only (needs `authTokens`); null for none. */
  readonly metricsToken: string | null;
  /** Groups per queue in `/metrics`' per-group series, by each ranking (0..100; 0 = none). */
  readonly metricsTopGroups: number;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Read the configuration from `env` (default `process.env`).
 * @throws ConfigError naming every invalid variable, on one line: `NAME=value: what is wrong`
 *   (tokens and URL passwords masked), `; ` between them
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const blank = Object.keys(fields.shape).filter(
    (name) =>
      !BLANK_MEANS_UNSET.includes(name) && env[name] !== undefined && env[name]?.trim() === '',
  );
  // The rest are checked as if the blank ones were unset, so every mistake is named at once.
  const parsed = schema.safeParse(
    blank.length === 0
      ? env
      : Object.fromEntries(Object.entries(env).filter(([name]) => !blank.includes(name))),
  );
  if (!parsed.success || blank.length > 0) {
    const byVariable = new Map<string, string[]>(blank.map((name) => [name, [blankCause(name)]]));
    for (const issue of parsed.success ? [] : parsed.error.issues) {
      const name = String(issue.path[0] ?? 'configuration');
      byVariable.set(name, [...(byVariable.get(name) ?? []), issue.message]);
    }
    const parts = [...byVariable].map(
      ([name, causes]) => `${setting(name, shown(name, env[name]))}: ${causes.join('; ')}`,
    );
    throw new ConfigError(parts.join('; '));
  }
  const c = parsed.data as z.infer<typeof schema>;
  return {
    port: c.PORT,
    host: c.HOST,
    redisUrl: c.REDIS_URL,
    redisClusterNodes: c.REDIS_CLUSTER_NODES,
    dataDir: c.DATA_DIR,
    keyPrefix: c.KEY_PREFIX,
    authTokens: c.AUTH_TOKENS?.roles ?? null,
    authTokenNames: c.AUTH_TOKENS?.names ?? new Map(),
    historyMaxLen: c.HISTORY_MAX_LEN,
    introspection: c.INTROSPECTION,
    corsOrigins: c.CORS_ORIGINS,
    reapIntervalMs: c.REAP_INTERVAL_MS,
    groupGraceMs: c.GROUP_GRACE_MS,
    resyncIntervalMs: c.RESYNC_INTERVAL_MS,
    pollIntervalMs: c.POLL_INTERVAL_MS,
    maxWatches: c.MAX_WATCHES,
    maxRereadsPerSecond: c.MAX_REREADS_PER_SECOND,
    maxConnectionsPerClient: c.MAX_CONNECTIONS_PER_CLIENT,
    logLevel: c.LOG_LEVEL,
    logFormat: c.LOG_FORMAT,
    embeddedRedisPort: c.EMBEDDED_REDIS_PORT === 0 ? undefined : c.EMBEDDED_REDIS_PORT,
    lookalikes: lookalikes(Object.keys(env), [...Object.keys(fields.shape), ...CLIENT_VARIABLES]),
    metricsToken: c.METRICS_TOKEN ?? null,
    metricsTopGroups: c.METRICS_TOP_GROUPS,
  };
}
