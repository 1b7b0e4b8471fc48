/**
 * `ringmaster schedules` and `ringmaster schedule set|remove` against a real server, run as a
 * process (DESIGN.md §3, "Schedules"): set answers the schedule, the list shows its timing, next
 * run and last job (the server's reaper fires a due tick), remove says whether there was one,
 * and a bad cron is refused by the server (exit 2) with nothing written; arguments out of range
 * are usage errors (exit 1) before anything is sent.
 */
import { describe, expect, it } from 'vitest';
import { pollUntil, redisNow, uniqueQueueName } from '../support/lanes.js';
import { useTestServer } from '../support/server.js';
import { runCli, runCliOk } from './support.js';

const TOKEN = 'ops-admin-token-0123456789';

const api = useTestServer({ REAP_INTERVAL_MS: '100', AUTH_TOKENS: `alice=admin:${TOKEN}` });

const env = () => ({ RINGMASTER_URL: api.endpoint, RINGMASTER_TOKEN: TOKEN });
const cli = async (args: string[]): Promise<string> => (await runCliOk(args, env())).stdout;

describe('schedules', () => {
  it('sets, lists with the last job the reaper’s tick enqueued, and removes', async () => {
    const queue = uniqueQueueName('cli-sched');
    const set = await cli([
      'schedule',
      'set',
      'nightly',
      'tenant-1',
      '-q',
      queue,
      '--cron',
      '0 30 2 * * *',
      '--timezone',
      'Europe/Berlin',
      '--payload',
      '{"report":"daily"}',
      '--priority',
      '2',
    ]);
    expect(set).toMatch(
      /^schedule nightly of \S+ set: cron 0 30 2 \* \* \* \(Europe\/Berlin\) into tenant-1, next run \d{4}-/,
    );
    await cli([
      'schedule',
      'set',
      'often',
      '--group',
      'tenant-2',
      '-q',
      queue,
      '--every-ms',
      '600000',
    ]);
    const e = api.server.engine.queue(queue);
    await api.redis.client().zadd(e.keys.schedules, (await redisNow(e.redis)) - 1_000, 'often');
    await pollUntil('the tick fired', async () => (await e.counts()).pending === 1);
    const [job] = (await e.jobs({ state: 'PENDING', group: 'tenant-2' })).jobs;
    const list = await cli(['schedules', '-q', queue]);
    expect(list).toMatch(/nightly\s.*tenant-1\s.*cron 0 30 2 \* \* \* \(Europe\/Berlin\)/);
    expect(list).toMatch(new RegExp(`often\\s.*tenant-2\\s.*every 10m.*\\s${job?.id}\\s`));
    const json = JSON.parse(await cli(['schedules', '-q', queue, '--json'])) as {
      totalCount: number;
      schedules: { id: string; priority: number; payload: unknown; lastJobId: string | null }[];
    };
    expect(json.totalCount).toBe(2);
    expect(json.schedules.map((s) => [s.id, s.priority, s.payload, s.lastJobId])).toEqual([
      ['nightly', 2, { report: 'daily' }, null],
      ['often', 5, null, job?.id],
    ]);
    expect(await cli(['schedule', 'remove', 'often', '-q', queue])).toMatch(/removed/);
    expect(await cli(['schedule', 'remove', 'often', '-q', queue])).toMatch(/nothing removed/);
    expect((await e.schedules()).schedules.map((s) => s.id)).toEqual(['nightly']);
  });

  it('a bad cron is refused by the server (exit 2), nothing written', async () => {
    const queue = uniqueQueueName('cli-sched-bad');
    const run = await runCli(
      ['schedule', 'set', 's', 'g', '-q', queue, '--cron', 'every day'],
      env(),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/cron.*'every day' is not a cron expression/);
    expect((await api.server.engine.queue(queue).schedules()).totalCount).toBe(0);
  });

  it.each([
    [['--every', '10m', '--cron', '* * * * *'], /--every and --cron together/],
    [[], /one of --every and --cron/],
    [['--every', '10'], /duration/],
    [['--every', '500ms'], /--every/],
    [['--every', '1m', '--timezone', 'UTC'], /--timezone applies only to --cron/],
    [['--every', '1m', '--payload', '{nope'], /expected JSON/],
    [['--every', '1m', '--every-ms', '60000'], /--every and --every-ms together/],
    [['--every-ms', '999'], /--every-ms/],
    [['--every', '1m', '--group', 'h'], /two groups/],
  ])('usage error for %j before anything is sent', async (args, message) => {
    const run = await runCli(['schedule', 'set', 's', 'g', '-q', 'q', ...args], env());
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
  });
});
