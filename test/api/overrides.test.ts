/**
 * Timed overrides through the API (DESIGN.md §4.3 and §4.8): `setLimit` and
 * `pauseGroup` with `forMs`, `Group.limitOverride` / `pauseOverride` (`TimedOverride`),
 * `Group.reason`'s clause for a pending revert, `cancelOverride`, and a bad `forMs` refused
 * before anything is written. The server's reaper is held off (a day's interval), so a revert
 * happens only where a test applies it; state is made and checked with the engine beside it.
 * Who may call them is in test/api/auth.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import {
  CancelOverrideDocument,
  type GroupOverrideFieldsFragment,
  GroupOverridesChangedDocument,
  type GroupOverridesChangedSubscription,
  GroupOverridesDocument,
  PauseGroupForDocument,
  QueueHistoryDocument,
  ResumeGroupForDocument,
  SetLimitForDocument,
} from '../gql/graphql.js';
import { expectRedisUnchanged, post } from '../support/api.js';
import {
  pollUntil,
  queueSnapshot,
  uniqueQueueName,
  untilRedisTimePasses,
} from '../support/lanes.js';
import { dataOf, wsSubscribe } from '../support/live.js';
import { ok, startTestServer, useTestServer } from '../support/server.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
const { redis } = api;

const engineQueue = (): Queue => api.server.engine.queue(uniqueQueueName('overrides'));
const MINUTE = 60_000;

/** The data of a call that must succeed. */
async function read(q: Queue, group: string): Promise<GroupOverrideFieldsFragment> {
  return ok(await api.request(GroupOverridesDocument, { queue: q.name, group })).queue.group;
}

describe('setLimit with forMs', () => {
  it('sets the limit, shows the pending revert and says so in the reason', async () => {
    const q = engineQueue();
    await q.setLimit('g', 10);
    await q.enqueue('g', 1);
    const data = ok(
      await api.request(SetLimitForDocument, {
        queue: q.name,
        group: 'g',
        limit: 2,
        forMs: 5 * MINUTE,
      }),
    );
    const g = data.setLimit as GroupOverrideFieldsFragment;
    expect(g).toMatchObject({ limit: 2, onRing: true, pauseOverride: null });
    const o = g.limitOverride;
    // The caller is the actor (auth off: 'admin'), in the override and in the history.
    expect(o).toMatchObject({
      kind: 'LIMIT',
      revertToLimit: 10,
      revertToPaused: null,
      actor: 'admin',
    });
    expect((await q.history({ first: 1 })).entries[0]).toMatchObject({
      action: 'setLimit',
      actor: 'admin',
      detail: { forMs: 5 * MINUTE },
    });
    expect(Date.parse(o?.until as string) - Date.parse(o?.setAt as string)).toBe(5 * MINUTE);
    expect(o?.remainingMs).toBeGreaterThan(4 * MINUTE);
    expect(o?.remainingMs).toBeLessThanOrEqual(5 * MINUTE);
    expect(g.reason).toMatch(/; limit 2 for 5 more minutes, then 10$/);
    // The engine stored what the API shows.
    expect((await q.group('g')).limitOverride?.until).toBe(Date.parse(o?.until as string));
  });

  it('a plain setLimit through the API drops the pending revert', async () => {
    const q = engineQueue();
    await q.setLimit('g', 1, { forMs: MINUTE });
    const data = ok(
      await api.request(SetLimitForDocument, { queue: q.name, group: 'g', limit: 4 }),
    );
    expect(data.setLimit).toMatchObject({ limit: 4, limitOverride: null });
    expect(await q.redis.zcard(q.keys.overrides)).toBe(0);
  });
});

describe('pauseGroup with forMs', () => {
  it('pauses, shows when it resumes, and the reason says "paused for 12 more minutes, then resumes"', async () => {
    const q = engineQueue();
    await q.enqueue('g', 1);
    const data = ok(
      await api.request(PauseGroupForDocument, { queue: q.name, group: 'g', forMs: 12 * MINUTE }),
    );
    const g = data.pauseGroup as GroupOverrideFieldsFragment;
    expect(g).toMatchObject({ paused: true, state: 'PAUSED', limitOverride: null });
    expect(g.pauseOverride).toMatchObject({
      kind: 'PAUSE',
      revertToPaused: false,
      revertToLimit: null,
    });
    expect(g.reason).toMatch(/^paused: .*; paused for 12 more minutes, then resumes$/);
  });

  it('past its deadline and not applied yet: remainingMs 0, and the reason says the next reaper pass applies it', async () => {
    const q = engineQueue();
    await q.enqueue('g', 1);
    const { until } = (await q.pause('g', { forMs: 5 })).pauseOverride ?? { until: 0 };
    await untilRedisTimePasses(q.redis, until);
    const g = await read(q, 'g');
    expect(g.pauseOverride?.remainingMs).toBe(0);
    expect(g.reason).toMatch(
      /; paused until the next reaper pass \(its deadline has passed\), then resumes$/,
    );
    await q.applyOverrides();
    expect(await read(q, 'g')).toMatchObject({ paused: false, pauseOverride: null, onRing: true });
  });

  it('a group without an override has none, and its reason is unchanged', async () => {
    const q = engineQueue();
    await q.enqueue('g', 1);
    await q.pause('g');
    const g = await read(q, 'g');
    expect(g).toMatchObject({ limitOverride: null, pauseOverride: null });
    expect(g.reason).toBe('paused: it gets no turns until resumed (1 pending, 0 in flight)');
  });
});

describe('groupChanged', () => {
  it('carries a timed pause as it is set and as it reverts', async () => {
    const q = engineQueue();
    await q.enqueue('g', 1);
    const sub = wsSubscribe(api.ws(), GroupOverridesChangedDocument, { queue: q.name, group: 'g' });
    type Event = GroupOverridesChangedSubscription['groupChanged'];
    const next = async (): Promise<Event> => dataOf(await sub.events.next()).groupChanged;
    try {
      expect(await next()).toMatchObject({ paused: false, pauseOverride: null });
      const { until } = (await q.pause('g', { forMs: 20 })).pauseOverride ?? { until: 0 };
      expect(await next()).toMatchObject({
        paused: true,
        pauseOverride: { kind: 'PAUSE', revertToPaused: false },
      });
      await untilRedisTimePasses(q.redis, until);
      await q.applyOverrides();
      let event = await next();
      // The revert's writes may arrive as more than one event; the last says it is over.
      while (event.paused) event = await next();
      expect(event).toMatchObject({ paused: false, pauseOverride: null, onRing: true });
    } finally {
      sub.close();
    }
  });
});

describe('resumeGroup with forMs', () => {
  it('resumes, shows when it pauses again, and the reason says "resumed for 12 more minutes, then paused again"', async () => {
    const q = engineQueue();
    await q.enqueue('g', 1);
    await q.pause('g');
    const data = ok(
      await api.request(ResumeGroupForDocument, { queue: q.name, group: 'g', forMs: 12 * MINUTE }),
    );
    const g = data.resumeGroup as GroupOverrideFieldsFragment;
    expect(g).toMatchObject({ paused: false, state: 'READY', onRing: true, limitOverride: null });
    expect(g.pauseOverride).toMatchObject({ kind: 'PAUSE', revertToPaused: true, actor: 'admin' });
    expect(g.reason).toMatch(/^on the ring .*; resumed for 12 more minutes, then paused again$/);
    expect((await read(q, 'g')).pauseOverride?.until).toBe(g.pauseOverride?.until);
    // cancelOverride PAUSE cancels it: resumed for good.
    const cancelled = ok(
      await api.request(CancelOverrideDocument, { queue: q.name, group: 'g', kind: 'PAUSE' }),
    );
    expect(cancelled.cancelOverride).toMatchObject({ paused: false, pauseOverride: null });
    expect(await q.redis.zcard(q.keys.overrides)).toBe(0);
  });

  it('a bad forMs is BAD_USER_INPUT (argument forMs) and writes nothing', async () => {
    const q = engineQueue();
    await q.pause('g');
    await expectRedisUnchanged(redis.client(), async () => {
      const { body } = await api.request(ResumeGroupForDocument, {
        queue: q.name,
        group: 'g',
        forMs: 0,
      });
      const error = body.errors?.[0] as { extensions?: Record<string, unknown> };
      expect(error?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'forMs' });
    });
  });
});

describe('a timed call that would revert to the value it sets (§4.8)', () => {
  /** The queue's history through the API: its entries' actions and details, newest first. */
  async function historyOf(q: Queue): Promise<{ action: string; detail: unknown }[]> {
    const data = ok(await api.request(QueueHistoryDocument, { queue: q.name, first: 50 }));
    return data.queue.history.edges.map((e) => ({ action: e.node.action, detail: e.node.detail }));
  }

  it('resumeGroup forMs of a group that is not paused: no override in the reply, nothing recorded', async () => {
    const q = engineQueue();
    const data = ok(
      await api.request(ResumeGroupForDocument, { queue: q.name, group: 'g9', forMs: 5_000 }),
    );
    const g = data.resumeGroup as GroupOverrideFieldsFragment;
    expect(g).toMatchObject({ paused: false, pauseOverride: null, limitOverride: null });
    expect(g.reason).not.toMatch(/resumed for|paused again/);
    expect(await read(q, 'g9')).toMatchObject({ pauseOverride: null });
    expect(await historyOf(q)).toEqual([]);
    expect(await q.redis.zcard(q.keys.overrides)).toBe(0);
  });

  it('pauseGroup forMs of a paused group and setLimit forMs to its limit: no override, nothing recorded', async () => {
    const q = engineQueue();
    await q.pause('g');
    await q.setLimit('g', 4);
    const paused = ok(
      await api.request(PauseGroupForDocument, { queue: q.name, group: 'g', forMs: 5_000 }),
    );
    expect(paused.pauseGroup).toMatchObject({ paused: true, pauseOverride: null });
    const limited = ok(
      await api.request(SetLimitForDocument, { queue: q.name, group: 'g', limit: 4, forMs: 5_000 }),
    );
    expect(limited.setLimit).toMatchObject({ limit: 4, limitOverride: null });
    expect((await historyOf(q)).map((e) => e.action)).toEqual(['setLimit', 'pause']);
  });

  it('resumeGroup forMs after a timed pause is the plain resume: it drops the pending pause, recorded as such', async () => {
    const q = engineQueue();
    await q.enqueue('g', 1);
    await q.pause('g', { forMs: 60 * MINUTE });
    const data = ok(
      await api.request(ResumeGroupForDocument, { queue: q.name, group: 'g', forMs: 15 * MINUTE }),
    );
    const g = data.resumeGroup as GroupOverrideFieldsFragment;
    expect(g).toMatchObject({ paused: false, onRing: true, pauseOverride: null });
    expect(g.reason).not.toMatch(/more minutes/);
    const [last] = await historyOf(q);
    expect(last).toMatchObject({ action: 'resume', detail: { cancelled: { revertTo: false } } });
  });
});

describe('cancelOverride', () => {
  it('drops the pending revert of its kind and keeps the value', async () => {
    const q = engineQueue();
    await q.pause('g', { forMs: MINUTE });
    await q.setLimit('g', 3, { forMs: MINUTE });
    const data = ok(
      await api.request(CancelOverrideDocument, { queue: q.name, group: 'g', kind: 'PAUSE' }),
    );
    expect(data.cancelOverride).toMatchObject({ paused: true, pauseOverride: null, limit: 3 });
    expect(data.cancelOverride?.limitOverride).toMatchObject({ kind: 'LIMIT' });
    expect(await q.redis.zrange(q.keys.overrides, 0, -1)).toEqual(['limit:g']);
  });
});

describe('bad forMs', () => {
  it.each([0, -5, 2_592_000_001])(
    'forMs %s is BAD_USER_INPUT (argument forMs) and writes nothing',
    async (forMs) => {
      const q = engineQueue();
      await q.setLimit('g', 1);
      const before = await queueSnapshot(q);
      await expectRedisUnchanged(redis.client(), async () => {
        for (const response of [
          await api.request(SetLimitForDocument, { queue: q.name, group: 'g', limit: 2, forMs }),
          await api.request(PauseGroupForDocument, { queue: q.name, group: 'g', forMs }),
        ]) {
          const error = response.body.errors?.[0] as { extensions?: Record<string, unknown> };
          expect(error?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'forMs' });
        }
      });
      expect(await queueSnapshot(q)).toEqual(before);
    },
  );

  it('a fraction of a ms is refused while the variables are coerced (SafeInt)', async () => {
    const q = engineQueue();
    const response = await api.request(PauseGroupForDocument, {
      queue: q.name,
      group: 'g',
      forMs: 1.5,
    });
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(await q.redis.exists(q.keys.paused)).toBe(0);
  });
});

describe("the server's reaper", () => {
  it('applies a due override on its next pass, and the API shows it reverted', async () => {
    const reaping = await startTestServer(redis.url, { REAP_INTERVAL_MS: '20' });
    try {
      const q = reaping.server.engine.queue(uniqueQueueName('overrides-reaped'));
      await q.enqueue('g', 1);
      await q.setLimit('g', 0, { forMs: 30 });
      await pollUntil('the limit reverted', async () => (await q.group('g')).limit === null);
      const { body } = await reaping.request(GroupOverridesDocument, { queue: q.name, group: 'g' });
      expect(body.data?.queue.group).toMatchObject({
        limit: null,
        limitOverride: null,
        onRing: true,
      });
      expect((await q.history({ first: 1 })).entries[0]).toMatchObject({
        action: 'revert',
        actor: 'timer',
      });
    } finally {
      await reaping.stop();
    }
  });
});

describe('audit and repairQueue (I6)', () => {
  it('an override whose deadline was lost is an OVERRIDE finding; repairQueue gives it back', async () => {
    const q = engineQueue();
    const { limitOverride } = await q.setLimit('g', 3, { forMs: 10 * MINUTE });
    await q.redis.zrem(q.keys.overrides, 'limit:g');
    const finding = {
      kind: 'OVERRIDE',
      subject: 'limit:g',
      expected: `a deadline at ${limitOverride?.until} (its until)`,
      found: 'no deadline: it would never revert',
    };
    const query = `query($q: String!) { queue(name: $q) { audit { findings { kind subject expected found } } } }`;
    const audit = await post(api.endpoint, { query, variables: { q: q.name } });
    expect(audit.json?.data).toEqual({ queue: { audit: { findings: [finding] } } });
    const mutation = `mutation($q: String!) { repairQueue(queue: $q) { findings { kind subject expected found } } }`;
    const repaired = await post(api.endpoint, { query: mutation, variables: { q: q.name } });
    expect(repaired.json?.data).toEqual({ repairQueue: { findings: [finding] } });
    expect(await q.redis.zscore(q.keys.overrides, 'limit:g')).toBe(String(limitOverride?.until));
  });
});
