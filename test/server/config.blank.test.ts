/**
 * A variable set but blank (after trimming) is refused with one line naming it, instead of
 * meaning unset: `AUTH_TOKENS=' '` once started with auth off, every caller admin. CORS_ORIGINS
 * alone keeps blank as unset (no other origin allowed either way).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/server/config.js';

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('a variable set but blank', () => {
  it('AUTH_TOKENS: refused, saying how to run without auth or with tokens', () => {
    for (const value of ['', ' ', '\t\n ']) {
      expect(refusal({ AUTH_TOKENS: value })).toBe(
        `AUTH_TOKENS=${JSON.stringify(value)}: is set but blank: unset it to run without auth (loopback only, every caller admin), or give tokens as role:token,…`,
      );
    }
  });

  it('REDIS_URL and REDIS_CLUSTER_NODES: refused, not the embedded Redis in their place', () => {
    expect(refusal({ REDIS_URL: ' ' })).toMatch(
      /^REDIS_URL=" ": is set but blank: unset it to run the embedded Redis/,
    );
    expect(refusal({ REDIS_CLUSTER_NODES: '' })).toMatch(
      /^REDIS_CLUSTER_NODES="": is set but blank/,
    );
  });

  it.each([
    'PORT',
    'HOST',
    'DATA_DIR',
    'KEY_PREFIX',
    'METRICS_TOKEN',
    'HISTORY_MAX_LEN',
    'REAP_INTERVAL_MS',
    'GROUP_GRACE_MS',
    'MAX_WATCHES',
    'INTROSPECTION',
    'LOG_LEVEL',
  ])('%s: refused, naming it', (name) => {
    expect(refusal({ [name]: ' ' })).toBe(
      `${name}=" ": is set but blank: unset it for the default, or give a value`,
    );
  });

  it('every blank one is named at once, with the other mistakes', () => {
    const message = refusal({ AUTH_TOKENS: ' ', PORT: '', LOG_LEVEL: 'loud' });
    expect(message.split('; ').sort()).toEqual([
      'AUTH_TOKENS=" ": is set but blank: unset it to run without auth (loopback only, every caller admin), or give tokens as role:token,…',
      'LOG_LEVEL=loud: must be one of fatal, error, warn, info, debug, trace, silent',
      'PORT="": is set but blank: unset it for the default, or give a value',
    ]);
  });

  it('GROUP_GRACE_MS: 1 h unset, 0 to 30 days accepted, beyond refused naming it', () => {
    expect(loadConfig({}).groupGraceMs).toBe(3_600_000);
    expect(loadConfig({ GROUP_GRACE_MS: '0' }).groupGraceMs).toBe(0);
    expect(loadConfig({ GROUP_GRACE_MS: '2592000000' }).groupGraceMs).toBe(2_592_000_000);
    expect(refusal({ GROUP_GRACE_MS: '2592000001' })).toBe(
      'GROUP_GRACE_MS=2592000001: must be a whole number of milliseconds from 0 to 2592000000 (30 days)',
    );
  });

  it('CORS_ORIGINS: blank allows no other origin, as unset does', () => {
    expect(loadConfig({ CORS_ORIGINS: ' ' }).corsOrigins).toEqual([]);
  });

  it('unset: the defaults, auth off', () => {
    const config = loadConfig({});
    expect(config.authTokens).toBeNull();
    expect(config.port).toBe(4000);
  });
});
