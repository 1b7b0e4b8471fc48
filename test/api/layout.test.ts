/**
 * `upgradeQueueLayout` over HTTP (DESIGN.md §2 "Upgrading in place", §4, §5): a queue of the job
 * layout before, made by hand, is converted in calls of at most 100 steps, `done` false until the
 * last; a role below admin is FORBIDDEN, a bad batch BAD_USER_INPUT, another layout's mark
 * LAYOUT_MISMATCH, each with nothing written.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { UpgradeQueueLayoutDocument } from '../gql/graphql.js';
import { expectRedisUnchanged, refusal } from '../support/api.js';
import { uniqueQueueName } from '../support/lanes.js';
import { writeOldLayout } from '../support/oldLayout.js';
import { ok, ROLE_AUTH_TOKENS, ROLE_TOKENS, useTestServer } from '../support/server.js';

const api = useTestServer({ AUTH_TOKENS: ROLE_AUTH_TOKENS, REAP_INTERVAL_MS: '86400000' });
const admin = { token: ROLE_TOKENS.admin };
let r: Redis;

beforeAll(() => {
  r = api.redis.client();
});

describe('upgradeQueueLayout', () => {
  it('converts a queue of the layout before, at most 100 steps a call, until done', async () => {
    // 250 ids at 1 a step: three calls (ids 3..250 name no job: visited all the same).
    const q = await writeOldLayout(api.server.engine.queue(uniqueQueueName('old')), 250);
    const call = async () =>
      ok(await api.request(UpgradeQueueLayoutDocument, { queue: q.name, batch: 1 }, admin))
        .upgradeQueueLayout;
    const common = { lastId: 250 };
    expect(await call()).toEqual({
      ...common,
      done: false,
      layout: 'upgrading',
      moved: 2,
      visitedTo: 100,
      steps: 100,
    });
    expect(await call()).toMatchObject({ done: false, moved: 0, visitedTo: 200, steps: 100 });
    expect(await call()).toEqual({
      ...common,
      done: true,
      layout: '2',
      moved: 0,
      visitedTo: 250,
      steps: 50,
    });
    expect(await q.redis.hgetall(q.keys.payloads)).toEqual({ 1: '{"old":1}', 2: '{"old":2}' });
    // Of this layout now: the pending job runs with its payload. Done is done.
    expect(await q.claim()).toMatchObject({ id: '1', payload: { old: 1 } });
    const again = ok(await api.request(UpgradeQueueLayoutDocument, { queue: q.name }, admin));
    expect(again.upgradeQueueLayout).toMatchObject({ done: true, layout: '2', moved: 0 });
  });

  it('refuses a role below admin, a bad batch and another layout’s mark, writing nothing', async () => {
    const q = await writeOldLayout(api.server.engine.queue(uniqueQueueName('old')));
    for (const role of ['read', 'worker'] as const) {
      const response = await expectRedisUnchanged(r, () =>
        api.request(UpgradeQueueLayoutDocument, { queue: q.name }, { token: ROLE_TOKENS[role] }),
      );
      expect(refusal(response).code).toBe('FORBIDDEN');
    }
    for (const batch of [0, 10_001]) {
      const response = await expectRedisUnchanged(r, () =>
        api.request(UpgradeQueueLayoutDocument, { queue: q.name, batch }, admin),
      );
      expect(refusal(response)).toEqual({ code: 'BAD_USER_INPUT', argument: 'batch' });
    }
    await q.redis.hset(q.keys.settings, 'layout', '3');
    const response = await expectRedisUnchanged(r, () =>
      api.request(UpgradeQueueLayoutDocument, { queue: q.name }, admin),
    );
    expect(refusal(response).code).toBe('LAYOUT_MISMATCH');
    expect(response.body.errors?.[0]?.message).toMatch(/is marked with job layout 3/);
  });
});
