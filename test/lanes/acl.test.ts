/**
 * A Redis user that lacks an ACL permission Ringmaster needs (DESIGN.md §5 REDIS_NOT_PERMITTED,
 * §6): every engine call Redis refuses is a coded error in one line naming what was refused and
 * what to grant, never a raw ioredis ReplyError; `checkServer()` finds such a user before
 * anything is served; the reaper reports a refused registry once, not every pass. Real users,
 * made here with ACL SETUSER on this file's own redis-server.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUIRED_COMMANDS } from '../../src/lanes/errors.js';
import { ErrorCode, Reaper, Ringmaster } from '../../src/lanes/index.js';
import { serverReaper } from '../../src/server/reaper.js';
import { queueName } from '../support/pubsub.js';
import { useTestRedis, usingExternalRedis } from '../support/redis.js';

const redis = useTestRedis();
const PREFIX = 'acltest';
const clients: Redis[] = [];

/** ACL rules of each user (password `pw`). */
const USERS = {
  // Everything but the scripts (and FCALL, without which the engine runs them by EVALSHA).
  noeval: ['~*', '&*', '+@all', '-eval', '-evalsha', '-script', '-fcall'],
  // EVAL but not EVALSHA, which ioredis sends first, nor FCALL.
  noevalsha: ['~*', '&*', '+@all', '-evalsha', '-fcall'],
  // Every command, keys outside the prefix only.
  other: ['~other:*', '&*', '+@all'],
  // Reads and scripts, no writes.
  readonly: ['~*', '&*', '+@read', '+@scripting', '+info', '+ping'],
  // Every command but two that the scripts run (a script's own call is refused).
  nohset: ['~*', '&*', '+@all', '-hset', '-hsetnx', '-set'],
  // Exactly what the grant in the messages and docs/redis.md names, on the prefix's keys.
  documented: [`~${PREFIX}:*`, '&*', ...REQUIRED_COMMANDS],
} as const;

function engineAs(user: keyof typeof USERS): Ringmaster {
  const url = new URL(redis.url);
  url.username = user;
  url.password = 'pw';
  const client = new Redis(url.toString(), { maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  clients.push(client);
  return new Ringmaster(client, { prefix: PREFIX });
}

beforeAll(async () => {
  const admin = redis.client();
  for (const [user, rules] of Object.entries(USERS)) {
    await admin.call('ACL', 'SETUSER', user, 'reset', 'on', '>pw', ...rules);
  }
});

afterAll(() => {
  for (const client of clients) client.disconnect();
});

describe.skipIf(usingExternalRedis())(
  'a Redis user without the permissions Ringmaster needs',
  () => {
    it('gets REDIS_NOT_PERMITTED from an engine call, naming the refused command and the grant', async () => {
      const cases: [keyof typeof USERS, RegExp][] = [
        [
          'noeval',
          /^Redis refused the EVAL(SHA)? command to this connection's user \(NOPERM\): grant/,
        ],
        ['noevalsha', /^Redis refused the EVALSHA command/],
        ['other', /^Redis refused a key to this connection's user \(NOPERM\)/],
        ['readonly', /^Redis refused the SADD command/],
        ['nohset', /^Redis refused a command run by a script to this connection's user \(NOPERM\)/],
      ];
      for (const [user, message] of cases) {
        const q = engineAs(user).queue(queueName('acl'));
        // ioredis sends a script by EVAL on its first use on a connection, by EVALSHA after.
        const error = await q
          .enqueue('g')
          .then(() => q.enqueue('g'))
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(error, user).toMatchObject({ code: ErrorCode.REDIS_NOT_PERMITTED, queue: q.name });
        expect((error as Error).message, user).toMatch(message);
        expect((error as Error).message).toContain(`+@scripting`);
        expect((error as Error).message).toContain(`~${PREFIX}:* for its prefix`);
        expect((error as Error).message).not.toContain('\n');
      }
      // A plain command too (the registry's SMEMBERS).
      await expect(engineAs('other').queues()).rejects.toMatchObject({
        code: ErrorCode.REDIS_NOT_PERMITTED,
        message: expect.stringMatching(/^Redis refused a key/),
      });
    });

    it('is found by checkServer() before anything is served, naming the prefix to grant', async () => {
      const before = (await redis.client().keys('*')).sort();
      // Not one command at a time (nohset): the scripts, the keys, writing at all.
      for (const user of ['noeval', 'noevalsha', 'other', 'readonly'] as const) {
        await expect(engineAs(user).checkServer(), user).rejects.toMatchObject({
          code: ErrorCode.REDIS_NOT_PERMITTED,
          message: expect.stringContaining(`~${PREFIX}:* for its prefix`),
        });
      }
      // Nothing was written by the check.
      expect((await redis.client().keys('*')).sort()).toEqual(before);
      expect(await new Ringmaster(redis.client(), { prefix: PREFIX }).checkServer()).toMatch(/^\d/);
      expect((await redis.client().keys('*')).sort()).toEqual(before);
    });

    it('lets a user with exactly the documented grant pass checkServer() and run jobs', async () => {
      const engine = engineAs('documented');
      expect(await engine.checkServer()).toMatch(/^\d/);
      const q = engine.queue(queueName('granted'));
      const job = await q.enqueue('g', { n: 1 });
      const claimed = await q.claim();
      expect(claimed?.id).toBe(job.id);
      await q.complete(job.id, claimed?.token as string);
      expect((await q.job(job.id))?.state).toBe('COMPLETED');
      expect(await engine.redis.ping()).toBe('PONG');
    });

    it('has the reaper report a refused registry once, not every pass', async () => {
      const errors: [string | null, string | undefined][] = [];
      const reaper = new Reaper(engineAs('other'), {
        onError: (error, queue) => errors.push([queue, (error as { code?: string }).code]),
      });
      await reaper.reapOnce();
      await reaper.reapOnce();
      await reaper.reapOnce();
      expect(errors).toEqual([[null, ErrorCode.REDIS_NOT_PERMITTED]]);
    });

    it('has the server’s reaper log it as one line, once, without a stack', async () => {
      const lines: { level: number; msg: string; err?: unknown }[] = [];
      const logger = pino(
        { level: 'info' },
        { write: (line: string) => lines.push(JSON.parse(line)) },
      );
      const reaper = serverReaper(engineAs('other'), 1_000, logger);
      for (let i = 0; i < 3; i++) await reaper.reapOnce();
      expect(lines).toHaveLength(1);
      expect(lines[0]?.level).toBe(40);
      expect(lines[0]?.err).toMatch(
        /^Redis refused a key to this connection's user \(NOPERM\): grant .*~acltest:\* for its prefix\).*\[REDIS_NOT_PERMITTED\]$/,
      );
    });
  },
);

describe.skipIf(usingExternalRedis())('a password changed under a running engine', () => {
  it('gets REDIS_NOT_PERMITTED (WRONGPASS) at the next call after a reconnect, naming what to set', async () => {
    const admin = redis.client();
    await admin.call('ACL', 'SETUSER', 'rotated', 'reset', 'on', '>pw', '~*', '&*', '+@all');
    const url = new URL(redis.url);
    url.username = 'rotated';
    url.password = 'pw';
    const client = new Redis(url.toString(), { maxRetriesPerRequest: 1 });
    client.on('error', () => {});
    clients.push(client);
    const q = new Ringmaster(client, { prefix: PREFIX }).queue(queueName('rotated'));
    await q.enqueue('g');
    await admin.call('ACL', 'SETUSER', 'rotated', 'resetpass', '>new-pw');
    const closed = new Promise((resolve) => client.once('close', resolve));
    await admin.call('CLIENT', 'KILL', 'USER', 'rotated');
    await closed;
    await expect(q.enqueue('g')).rejects.toMatchObject({
      code: ErrorCode.REDIS_NOT_PERMITTED,
      message: expect.stringMatching(/^Redis refused this connection's credentials \(WRONGPASS\)/),
    });
  });
});
