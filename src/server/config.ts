/**
 * The one place configuration is read (DESIGN.md §6): environment variables, validated, with
 * messages that name the variable and what it accepts. Nothing else reads `process.env`.
 */
import { z } from 'zod';
import { DEFAULT_MAX_REREADS_PER_SECOND, DEFAULT_MAX_WATCHES } from '../pubsub/index.js';
import type { Role } from '../schema/context.js';
import { DEFAULT_MAX_CONNECTIONS_PER_CLIENT } from './connectionLimits.js';

const ROLES = ['read', 'worker', 'admin'] as const;

const ms = (name: string, fallback: number) =>
  z.coerce
    .number({ error: `${name} must be a number of milliseconds` })
    .int(`${name} must be a whole number of milliseconds`)
    .min(1, `${name} must be at least 1`)
    .max(86_400_000, `${name} must be at most 86400000`)
    .default(fallback);

/** A whole number from 1 to `max` (a bound on how many of something). */
const count = (name: string, fallback: number, max: number) =>
  z.coerce
    .number({ error: `${name} must be a whole number from 1 to ${max}` })
    .int(`${name} must be a whole number from 1 to ${max}`)
    .min(1, `${name} must be a whole number from 1 to ${max}`)
    .max(max, `${name} must be a whole number from 1 to ${max}`)
    .default(fallback);

const boolean = (name: string, fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'], { error: `${name} must be true or false` })
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

/** `role:token,…` → token → role. Tokens must be at least 16 characters. */
const authTokens = z
  .string()
  .optional()
  .transform((value, ctx) => {
    const tokens = new Map<string, Role>();
    if (value === undefined || value.trim() === '') return null;
    for (const entry of value.split(',')) {
      const at = entry.indexOf(':');
      const role = entry.slice(0, at).trim() as Role;
      const token = entry.slice(at + 1).trim();
      if (at < 0 || !ROLES.includes(role) || token.length < 16) {
        ctx.addIssue({
          code: 'custom',
          message:
            'AUTH_TOKENS must be role:token,… with roles read, worker, admin and tokens of 16+ characters',
        });
        return z.NEVER;
      }
      if (tokens.has(token)) {
        // One token, two roles: whichever won would be a surprise to someone.
        ctx.addIssue({ code: 'custom', message: 'AUTH_TOKENS gives one token two roles' });
        return z.NEVER;
      }
      tokens.set(token, role);
    }
    return tokens;
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
          message: 'CORS_ORIGINS must be origins like https://admin.example.com, comma-separated',
        });
        return z.NEVER;
      }
    }
    return origins;
  });

const schema = z
  .object({
    PORT: z.coerce
      .number({ error: 'PORT must be a port number (0 to 65535)' })
      .int('PORT must be a port number (0 to 65535)')
      .min(0, 'PORT must be a port number (0 to 65535)')
      .max(65_535, 'PORT must be a port number (0 to 65535)')
      .default(4000),
    HOST: z.string().min(1).default('127.0.0.1'),
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'REDIS_URL must start with redis:// or rediss://')
      .optional(),
    DATA_DIR: z.string().min(1).default('.data'),
    KEY_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, 'KEY_PREFIX must be 1 to 64 of A-Z a-z 0-9 . _ -')
      .default('emq'),
    AUTH_TOKENS: authTokens,
    INTROSPECTION: boolean('INTROSPECTION', true),
    CORS_ORIGINS: corsOrigins,
    REAP_INTERVAL_MS: ms('REAP_INTERVAL_MS', 1000),
    RESYNC_INTERVAL_MS: ms('RESYNC_INTERVAL_MS', 5000),
    POLL_INTERVAL_MS: ms('POLL_INTERVAL_MS', 1000),
    // Bounds on what subscribers may make the server hold (issue 12, "Unbounded watches").
    MAX_WATCHES: count('MAX_WATCHES', DEFAULT_MAX_WATCHES, 1_000_000),
    MAX_REREADS_PER_SECOND: count(
      'MAX_REREADS_PER_SECOND',
      DEFAULT_MAX_REREADS_PER_SECOND,
      1_000_000,
    ),
    MAX_CONNECTIONS_PER_CLIENT: count(
      'MAX_CONNECTIONS_PER_CLIENT',
      DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
      1_000_000,
    ),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info'),
  })
  .refine((c) => c.AUTH_TOKENS !== null || isLoopback(c.HOST), {
    message: 'HOST is not a loopback address: set AUTH_TOKENS, or bind HOST to 127.0.0.1',
    path: ['HOST'],
  });

/** Validated settings (names as in DESIGN.md §6; times in ms). */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** Unset: start an embedded redis-server with its append-only file in `dataDir`. */
  readonly redisUrl: string | undefined;
  readonly dataDir: string;
  readonly keyPrefix: string;
  /** token → role; null = auth off (loopback only). */
  readonly authTokens: ReadonlyMap<string, Role> | null;
  readonly introspection: boolean;
  /** Origins allowed to call from a browser page of another origin; empty = same-origin only. */
  readonly corsOrigins: readonly string[];
  readonly reapIntervalMs: number;
  readonly resyncIntervalMs: number;
  readonly pollIntervalMs: number;
  /** Distinct rings and groups watched at once, server-wide; past it LIMIT_EXCEEDED. */
  readonly maxWatches: number;
  /** Safety re-reads and polls per second, all watches together. */
  readonly maxRereadsPerSecond: number;
  /** Open WebSockets per client address (auth off) or per token (auth on). */
  readonly maxConnectionsPerClient: number;
  readonly logLevel: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** True for 127.0.0.0/8, ::1 and localhost. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Read the configuration from `env` (default `process.env`).
 * @throws ConfigError listing every invalid variable
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || 'config'}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  return {
    port: c.PORT,
    host: c.HOST,
    redisUrl: c.REDIS_URL,
    dataDir: c.DATA_DIR,
    keyPrefix: c.KEY_PREFIX,
    authTokens: c.AUTH_TOKENS,
    introspection: c.INTROSPECTION,
    corsOrigins: c.CORS_ORIGINS,
    reapIntervalMs: c.REAP_INTERVAL_MS,
    resyncIntervalMs: c.RESYNC_INTERVAL_MS,
    pollIntervalMs: c.POLL_INTERVAL_MS,
    maxWatches: c.MAX_WATCHES,
    maxRereadsPerSecond: c.MAX_REREADS_PER_SECOND,
    maxConnectionsPerClient: c.MAX_CONNECTIONS_PER_CLIENT,
    logLevel: c.LOG_LEVEL,
  };
}
