/**
 * REDIS_URL as messages and logs show it (issue: a password holding `@` half leaked, since the
 * masker cut the user information at the FIRST `@` while ioredis' parse, WHATWG URL, cuts at
 * the LAST). Each password is checked against what ioredis itself would send for that URL.
 */
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { shown } from '../../src/server/config.js';
import { createLogger } from '../../src/server/logger.js';
import { maskUrl } from '../../src/server/startupError.js';

const PASSWORDS = [
  'super@secretPW',
  'se:cr:et-pw',
  'sup3r%40secr3t',
  'qu1ck/br0wn',
  'qu1ck?br0wn',
  'qu1ck#br0wn',
  'xk9q@y7z2/zq8w?w4v1#v5u6:u3t2',
];

/** The user and password ioredis would send for `url`, or null where it cannot parse it. */
function sent(url: string): { username: string | undefined; password: string | undefined } | null {
  try {
    const { username, password } = new Redis(url, { lazyConnect: true }).options;
    return { username, password };
  } catch {
    return null;
  }
}

/** The pieces of `password` long enough to give it away (split at its special characters). */
function pieces(password: string): string[] {
  return [password, decodeURIComponent(password), ...password.split(/[@:/?#%]/)].filter(
    (p) => p.length >= 4,
  );
}

describe('maskUrl', () => {
  for (const password of PASSWORDS) {
    it(`masks the password ${JSON.stringify(password)} wherever it is written`, () => {
      const urls = [
        `redis://:${password}@127.0.0.1:6392`,
        `redis://alice:${password}@cache.example:6379/2`,
        `rediss://:${password}@cache.example`,
        `redis://127.0.0.1:6392?password=${password}`,
        `redis://127.0.0.1:6392/0?db=0&password=${encodeURIComponent(password)}`,
      ];
      for (const url of urls) {
        const masked = maskUrl(url);
        for (const piece of pieces(password)) expect(masked, url).not.toContain(piece);
        const secret = sent(url)?.password;
        if (secret && secret.length >= 4) expect(masked, url).not.toContain(secret);
        expect(masked, url).toContain('****');
      }
    });
  }

  it('keeps what is not secret: the scheme, a user with a password, host, port, database', () => {
    expect(maskUrl('redis://:super@secretPW@127.0.0.1:6392')).toBe('redis://:****@127.0.0.1:6392');
    expect(maskUrl('redis://alice:a@b@cache:6379/2')).toBe('redis://alice:****@cache:6379/2');
    expect(maskUrl('redis://127.0.0.1:6392?password=x@y&db=1')).toBe(
      'redis://127.0.0.1:6392?password=****&db=1',
    );
    expect(maskUrl('redis://127.0.0.1:6379/0')).toBe('redis://127.0.0.1:6379/0');
    expect(maskUrl('https://alice:pw@cache.example:6379')).toBe(
      'https://alice:****@cache.example:6379',
    );
  });

  it('masks a user written alone whole (ioredis sends it as a user name; often a password)', () => {
    expect(maskUrl('redis://s3cret@s3cret@cache:6379')).toBe('redis://****@cache:6379');
    expect(sent('redis://s3cret@s3cret@cache:6379')?.username).toBe('s3cret@s3cret');
  });

  it('masks every node of REDIS_CLUSTER_NODES the same way', () => {
    expect(shown('REDIS_CLUSTER_NODES', 'redis://:a@bcdef@n1:7000,redis://:g@hijk@n2:7001')).toBe(
      'redis://:****@n1:7000,redis://:****@n2:7001',
    );
  });
});

describe('the log', () => {
  it('masks a url field and the arguments of an ioredis command error', () => {
    let out = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        out += String(chunk);
        done();
      },
    });
    const logger = createLogger('info', sink);
    logger.info({ url: 'redis://:super@secretPW@127.0.0.1:6392' }, 'started');
    logger.warn(
      { err: { message: 'WRONGPASS', command: { name: 'auth', args: ['hunter2-secret'] } } },
      'x',
    );
    logger.info({ password: 'hunter3-secret' }, 'y');
    expect(out).toContain('redis://:****@127.0.0.1:6392');
    expect(out).not.toMatch(/secretPW|hunter2-secret|hunter3-secret/);
  });
});
