/**
 * Schedules over HTTP (DESIGN.md §3 "Schedules", §4.2 `Queue.schedules`, §4.3
 * `upsertSchedule`, `removeSchedule`): the mutations answer the schedule and whether one was
 * removed, the connection lists them, the server's reaper fires a due tick (one job, named by
 * `lastJobId`), and bad input is BAD_USER_INPUT naming the argument, with nothing written.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  RemoveScheduleDocument,
  SchedulesDocument,
  UpsertScheduleDocument,
} from '../gql/graphql.js';
import { expectNoLeak, expectRedisUnchanged } from '../support/api.js';
import { pollUntil, redisNow, uniqueQueueName } from '../support/lanes.js';
import { ok, useTestServer } from '../support/server.js';

const api = useTestServer({ REAP_INTERVAL_MS: '100' });
let r: Redis;

beforeAll(() => {
  r = api.redis.client();
});

describe('schedules over GraphQL', () => {
  it('upserts, lists, fires on the reaper’s pass and removes', async () => {
    const queue = uniqueQueueName('sched');
    const e = api.server.engine.queue(queue);
    const upserted = ok(
      await api.request(UpsertScheduleDocument, {
        queue,
        id: 'report',
        group: 'tenant-1',
        cron: '0 30 2 * * *',
        timezone: 'Europe/Berlin',
        payload: { kind: 'report' },
        maxAttempts: 2,
      }),
    ).upsertSchedule;
    expect(upserted).toMatchObject({
      id: 'report',
      group: 'tenant-1',
      everyMs: null,
      cron: '0 30 2 * * *',
      timezone: 'Europe/Berlin',
      payload: { kind: 'report' },
      maxAttempts: 2,
      priority: 5,
      lastRunAt: null,
      lastJobId: null,
    });
    expect(Date.parse(upserted?.nextRunAt as string)).toBeGreaterThan(await redisNow(r));
    // Due a while ago, as if nothing had ticked: the server's reaper fires it once.
    await r.zadd(e.keys.schedules, (await redisNow(r)) - 5_000, 'report');
    await pollUntil('the tick fired', async () => (await e.counts()).pending === 1);
    const page = ok(await api.request(SchedulesDocument, { queue, first: 10 })).queue.schedules;
    expect(page.totalCount).toBe(1);
    const node = page.edges[0]?.node;
    const [job] = (await e.jobs({ state: 'PENDING', group: 'tenant-1' })).jobs;
    expect(node?.lastJobId).toBe(job?.id);
    expect(job?.payload).toEqual({ kind: 'report' });
    expect(Date.parse(node?.nextRunAt as string)).toBeGreaterThan(await redisNow(r));
    expect(ok(await api.request(RemoveScheduleDocument, { queue, id: 'report' }))).toEqual({
      removeSchedule: true,
    });
    expect(ok(await api.request(RemoveScheduleDocument, { queue, id: 'report' }))).toEqual({
      removeSchedule: false,
    });
    // Recorded in the steering history as the caller (auth off: admin).
    const entries = await r.xrange(e.keys.history, '-', '+');
    expect(entries.map(([, f]) => [f[1], f[3], f[5]])).toEqual([
      ['upsertSchedule', 'tenant-1', 'admin'],
      ['removeSchedule', 'tenant-1', 'admin'],
    ]);
  });

  it('pages by id', async () => {
    const queue = uniqueQueueName('sched-page');
    for (const id of ['b', 'a', 'c']) {
      ok(await api.request(UpsertScheduleDocument, { queue, id, group: 'g', everyMs: 60_000 }));
    }
    const one = ok(await api.request(SchedulesDocument, { queue, first: 2 })).queue.schedules;
    expect(one.edges.map((e) => e.node.id)).toEqual(['a', 'b']);
    expect(one.pageInfo.hasNextPage).toBe(true);
    const two = ok(
      await api.request(SchedulesDocument, { queue, first: 2, after: one.pageInfo.endCursor }),
    ).queue.schedules;
    expect(two.edges.map((e) => e.node.id)).toEqual(['c']);
    expect(two.edges[0]?.node.everyMs).toBe(60_000);
  });

  it.each([
    [{ cron: 'every day' }, 'cron', /'every day' is not a cron expression/],
    [{ cron: '* * * * *', timezone: 'Mars/Olympus' }, 'timezone', /Mars\/Olympus/],
    [{}, 'everyMs', /exactly one of everyMs and cron/],
    [{ everyMs: 5_000, cron: '* * * * *' }, 'cron', /exactly one/],
    [{ everyMs: 10 }, 'everyMs', /1000/],
  ])('refuses %j with BAD_USER_INPUT %s, writing nothing', async (timing, argument, message) => {
    const queue = uniqueQueueName('sched-bad');
    const response = await expectRedisUnchanged(r, () =>
      api.request(UpsertScheduleDocument, { queue, id: 's', group: 'g', ...timing }),
    );
    expectNoLeak(JSON.stringify(response.body));
    expect(response.body.data?.upsertSchedule).toBeNull();
    const error = response.body.errors?.[0];
    expect(error?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument });
    expect(error?.message).toMatch(message);
  });
});
