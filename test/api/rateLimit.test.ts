/**
 * Per-group rate limits through the API (DESIGN.md §4.2, §4.3): the admin mutations
 * `setRateLimit` / `clearRateLimit`, `Group.rateLimit`, `Group.rateLimitedUntil`, state and
 * blockedBy RATE_LIMITED and the reason's "until when", over a real server and Redis. Roles are
 * in test/api/auth.test.ts, bad input in test/api/badInput.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Job, Queue } from '../../src/lanes/index.js';
import { rateLimitedSentence } from '../../src/resolvers/rateLimit.js';
import {
  ClaimCostedDocument,
  ClearRateLimitDocument,
  type ClearRateLimitMutation,
  EnqueueCostedDocument,
  EnqueueJobsCostedDocument,
  GroupRateChangedDocument,
  type GroupRateChangedSubscription,
  GroupReasonDocument,
  type GroupReasonQuery,
  QueueSnapshotDocument,
  type QueueSnapshotQuery,
  SetRateLimitDocument,
  type SetRateLimitMutation,
} from '../gql/graphql.js';
import { NO_OPERATIONS, redisNow } from '../support/lanes.js';
import { dataOf, sseSubscribe, wsSubscribe } from '../support/live.js';
import { queueName } from '../support/pubsub.js';
import { useTestServer } from '../support/server.js';

const HOUR = 3_600_000;
// No reaper pass during the tests: it would promote a group whose window reopened, which the
// tests of such a group read before any claim or reap has (REAP_INTERVAL_MS a day).
// Safety re-reads a minute apart: a group's reopening must reach groupChanged by itself.
const server = useTestServer({
  REAP_INTERVAL_MS: '86400000',
  RESYNC_INTERVAL_MS: '60000',
});

const engineQueue = (): Queue => server.server.engine.queue(queueName('rate'));

async function setRate(queue: Queue, group: string, max: number, windowMs: number) {
  const { status, body } = await server.request(SetRateLimitDocument, {
    queue: queue.name,
    group,
    max,
    windowMs,
  });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return (body.data as SetRateLimitMutation).setRateLimit;
}

describe('setRateLimit and clearRateLimit', () => {
  it('set, used up (RATE_LIMITED until the window reopens), cleared (READY)', async () => {
    const queue = engineQueue();
    const set = await setRate(queue, 'g', 1, HOUR);
    expect(set).toMatchObject({
      id: 'g',
      state: 'IDLE',
      rateLimit: { max: 1, windowMs: HOUR, burst: 1 },
      rateLimitedUntil: null,
    });
    await queue.enqueue('g', 1);
    await queue.enqueue('g', 2);
    const job = (await queue.claim()) as Job;
    const until = new Date(Number(job.claimedAt) + HOUR).toISOString();
    // The same rate again answers the group as it is: rate-limited.
    const limited = await setRate(queue, 'g', 1, HOUR);
    expect(limited).toMatchObject({
      state: 'RATE_LIMITED',
      onRing: false,
      blockedBy: 'RATE_LIMITED',
      rateLimitedUntil: until,
    });
    expect(limited?.reason).toBe(
      `rate-limited: its bucket (1 token per 1 h, burst 1) is short of its next job's cost, so it gets no turns until the next token it needs comes at ${until} (1 pending, 1 in flight)`,
    );

    const { body } = await server.request(ClearRateLimitDocument, {
      queue: queue.name,
      group: 'g',
    });
    expect(body.errors).toBeUndefined();
    expect((body.data as ClearRateLimitMutation).clearRateLimit).toMatchObject({
      state: 'READY',
      onRing: true,
      blockedBy: null,
      rateLimit: null,
      rateLimitedUntil: null,
    });
    expect(await queue.ring()).toEqual(['g']);
    // Recorded with the caller's actor (auth off: admin), newest first.
    const { entries } = await queue.history({ group: 'g' });
    expect(entries.map((e) => [e.action, e.actor, e.after])).toEqual([
      ['clearRateLimit', 'admin', { rateLimit: null }],
      ['setRateLimit', 'admin', { rateLimit: { max: 1, windowMs: HOUR, burst: 1 } }],
    ]);
  });

  it('windowMs past a 32-bit Int (30 days) is a SafeInt', async () => {
    const queue = engineQueue();
    const set = await setRate(queue, 'g', 1_000_000, 2_592_000_000);
    expect(set?.rateLimit).toEqual({ max: 1_000_000, windowMs: 2_592_000_000, burst: 1_000_000 });
  });

  it('burst: the bucket holds that many tokens; Job.cost takes them, the head job decides', async () => {
    const queue = engineQueue();
    const { body } = await server.request(SetRateLimitDocument, {
      queue: queue.name,
      group: 'g',
      max: 1,
      windowMs: HOUR,
      burst: 3,
    });
    expect(body.errors).toBeUndefined();
    expect((body.data as SetRateLimitMutation).setRateLimit?.rateLimit).toEqual({
      max: 1,
      windowMs: HOUR,
      burst: 3,
    });
    const enqueue = async (cost?: number) =>
      server.request(EnqueueCostedDocument, { queue: queue.name, group: 'g', cost });
    const plain = await enqueue();
    expect(plain.body.data?.enqueue?.cost).toBe(1);
    const dear = await enqueue(2);
    expect(dear.body.data?.enqueue?.cost).toBe(2);
    // Above the burst: refused, nothing written.
    const refused = await enqueue(4);
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'cost',
    });
    const many = await server.request(EnqueueJobsCostedDocument, {
      queue: queue.name,
      jobs: [
        { group: 'g', cost: 3 },
        { group: 'g', cost: 9 },
      ],
    });
    expect(many.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'jobs[1].cost',
    });
    expect(await queue.redis.zcard(queue.keys.lane('g'))).toBe(2);
    await enqueue(1);
    // 3 tokens: the first (1) and the second (2); the third waits for a token an hour away.
    const claim = async () =>
      (await server.request(ClaimCostedDocument, { queue: queue.name })).body.data?.claim ?? null;
    expect(await claim()).toMatchObject({ id: plain.body.data?.enqueue?.id, cost: 1 });
    expect(await claim()).toMatchObject({ id: dear.body.data?.enqueue?.id, cost: 2 });
    expect(await claim()).toBeNull();
    const g = await queue.group('g');
    expect(g.state).toBe('RATE_LIMITED');
  });

  it('bad input is BAD_USER_INPUT naming the argument, and writes nothing', async () => {
    const queue = engineQueue();
    const { body } = await server.request(SetRateLimitDocument, {
      queue: queue.name,
      group: 'g',
      max: 0,
      windowMs: 1_000,
    });
    expect(body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'max',
    });
    expect(await queue.known()).toBe(false);
  });
});

describe('groupChanged', () => {
  it('hears a group come to its rate (RATE_LIMITED, until when) and be freed by clearRateLimit', async () => {
    const queue = engineQueue();
    await queue.setRateLimit('g', { max: 1, windowMs: HOUR });
    await queue.enqueue('g', 1);
    await queue.enqueue('g', 2);
    const sub = wsSubscribe(server.ws(), GroupRateChangedDocument, {
      queue: queue.name,
      group: 'g',
    });
    type Event = GroupRateChangedSubscription['groupChanged'];
    // Events are coalesced: read until one shows what is awaited (bounded by the recorder's wait).
    const until = async (wanted: (e: Event) => boolean): Promise<Event> => {
      for (;;) {
        const event = dataOf(await sub.events.next()).groupChanged;
        if (wanted(event)) return event;
      }
    };
    try {
      expect(await until(() => true)).toMatchObject({
        state: 'READY',
        rateLimit: { max: 1, windowMs: HOUR, burst: 1 },
      });
      const job = (await queue.claim()) as Job;
      expect(await until((e) => e.state === 'RATE_LIMITED')).toEqual({
        id: 'g',
        state: 'RATE_LIMITED',
        blockedBy: 'RATE_LIMITED',
        rateLimit: { max: 1, windowMs: HOUR, burst: 1 },
        rateLimitedUntil: new Date(Number(job.claimedAt) + HOUR).toISOString(),
      });
      await queue.clearRateLimit('g');
      expect(await until((e) => e.state === 'READY')).toMatchObject({
        blockedBy: null,
        rateLimit: null,
        rateLimitedUntil: null,
      });
    } finally {
      sub.close();
    }
  });
});

describe('groupChanged at a rate window reopening (nothing written to Redis then)', () => {
  it.each([
    [
      'WebSocket',
      () => (v: { queue: string; group: string }) =>
        wsSubscribe(server.ws(), GroupRateChangedDocument, v),
    ],
    [
      'SSE',
      () => (v: { queue: string; group: string }) =>
        sseSubscribe(server.endpoint, GroupRateChangedDocument, v),
    ],
  ])(
    '%s: sends the group READY, rateLimitedUntil null, once its window reopened',
    async (_, make) => {
      const queue = engineQueue();
      const windowMs = 1_500;
      await queue.setRateLimit('g', { max: 1, windowMs });
      await queue.enqueue('g', 1);
      await queue.enqueue('g', 2);
      const job = (await queue.claim({ leaseMs: 600_000 })) as Job;
      const until = Number(job.claimedAt) + windowMs;
      const sub = make()({ queue: queue.name, group: 'g' });
      try {
        expect(dataOf(await sub.events.next()).groupChanged).toMatchObject({
          state: 'RATE_LIMITED',
          rateLimitedUntil: new Date(until).toISOString(),
        });
        // No claim, no reaper pass (a day apart), no safety re-read (a minute): only the feed's
        // own re-read at the reopening sends this.
        expect(dataOf(await sub.events.next(windowMs + 3_000)).groupChanged).toEqual({
          id: 'g',
          state: 'READY',
          blockedBy: null,
          rateLimit: { max: 1, windowMs, burst: 1 },
          rateLimitedUntil: null,
        });
        expect(await redisNow(queue.redis)).toBeGreaterThanOrEqual(until);
        // Nothing was written: the group still waits in `ratelimited` for a claim.
        expect(await queue.redis.zscore(queue.keys.rateLimited, 'g')).toBe(String(until));
      } finally {
        sub.close();
      }
    },
  );
});

describe('the reason of a rate-limited group', () => {
  it('names the window in its largest whole unit and the reopening as an ISO time', () => {
    const g = (max: number, windowMs: number) =>
      rateLimitedSentence({
        id: 'g',
        queue: 'q',
        limit: null,
        active: 0,
        pending: 3,
        paused: false,
        onRing: false,
        state: 'RATE_LIMITED',
        ...NO_OPERATIONS,
        rateLimit: { max, windowMs, burst: max },
        rateLimitedUntil: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
      });
    expect(g(2, 90_000)).toBe(
      "rate-limited: its bucket (2 tokens per 90 s, burst 2) is short of its next job's cost, so it gets no turns until the next token it needs comes at 2026-01-02T03:04:05.006Z (3 pending, 0 in flight)",
    );
    expect(g(1, 1_500)).toMatch(/1 token per 1500 ms/);
    expect(g(1, 2 * 86_400_000)).toMatch(/per 2 d/);
    expect(g(1, 120_000)).toMatch(/per 2 min/);
  });
});

describe('a group held by its rate and by something before it in precedence', () => {
  /** The group's state, blockedBy and reason, read over HTTP. */
  async function read(queue: Queue, group: string): Promise<GroupReasonQuery['queue']['group']> {
    const { body } = await server.request(GroupReasonDocument, { queue: queue.name, group });
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return (body.data as GroupReasonQuery).queue.group;
  }

  /** A group with rate 1 per hour and two jobs, one claimed: its window is used up. */
  async function usedUp(queue: Queue, group: string): Promise<{ job: Job; until: string }> {
    await queue.setRateLimit(group, { max: 1, windowMs: HOUR });
    await queue.enqueue(group, 1);
    await queue.enqueue(group, 2);
    const job = (await queue.claim({ leaseMs: 600_000 })) as Job;
    return { job, until: new Date(Number(job.claimedAt) + HOUR).toISOString() };
  }

  it('at its limit: LIMIT, and the reason says the rate too, which still holds after the completion', async () => {
    const queue = engineQueue();
    await queue.setLimit('g', 1);
    const { job, until } = await usedUp(queue, 'g');
    expect(await read(queue, 'g')).toMatchObject({ state: 'SATURATED', blockedBy: 'LIMIT' });
    expect((await read(queue, 'g')).reason).toBe(
      `at its limit (1 of 1 in flight) and rate-limited until ${until} (1 token per 1 h, burst 1): it gets no turns until one finishes and its next token comes (1 pending, 1 in flight)`,
    );
    await queue.complete(job.id, job.token as string);
    const after = await read(queue, 'g');
    expect(after).toMatchObject({ state: 'RATE_LIMITED', blockedBy: 'RATE_LIMITED' });
    expect(after.reason).toMatch(new RegExp(`^rate-limited: .* comes at ${until} \\(1 pending`));
  });

  it('paused: PAUSED, and the reason says the rate too, which still holds after the resume', async () => {
    const queue = engineQueue();
    const { until } = await usedUp(queue, 'g');
    await queue.pause('g');
    expect(await read(queue, 'g')).toEqual({
      id: 'g',
      state: 'PAUSED',
      onRing: false,
      blockedBy: 'PAUSED',
      reason: `paused and rate-limited until ${until} (1 token per 1 h, burst 1): it gets no turns until it is resumed and its next token comes (1 pending, 1 in flight)`,
    });
    await queue.resume('g');
    expect(await read(queue, 'g')).toMatchObject({
      state: 'RATE_LIMITED',
      blockedBy: 'RATE_LIMITED',
      reason: expect.stringMatching(/^rate-limited: /),
    });
  });

  it('parked (limit 0): PARKED, and the reason says the rate too', async () => {
    const queue = engineQueue();
    const { until } = await usedUp(queue, 'g');
    await queue.setLimit('g', 0);
    expect(await read(queue, 'g')).toMatchObject({
      blockedBy: 'PARKED',
      reason: `parked (the limit is 0) and rate-limited until ${until} (1 token per 1 h, burst 1): it gets no turns until the limit is raised and its next token comes (1 pending, 1 in flight)`,
    });
  });

  it('paused, at its limit and rate-limited: all three named, with what lifts each', async () => {
    const queue = engineQueue();
    await queue.setLimit('g', 1);
    const { until } = await usedUp(queue, 'g');
    await queue.pause('g');
    expect(await read(queue, 'g')).toMatchObject({
      blockedBy: 'PAUSED',
      reason: `paused, at its limit (1 of 1 in flight) and rate-limited until ${until} (1 token per 1 h, burst 1): it gets no turns until it is resumed, one finishes and its next token comes (1 pending, 1 in flight)`,
    });
  });
});

describe('a group whose rate window reopened, before any claim put it back', () => {
  /** Rate 1 per hour used up by a claim, then its reopening moved a day into the past. */
  async function reopened(queue: Queue, group: string): Promise<string> {
    await queue.setRateLimit(group, { max: 1, windowMs: HOUR });
    await queue.enqueue(group, 1);
    await queue.enqueue(group, 2);
    await queue.claim({ leaseMs: 600_000 });
    const past = (await redisNow(queue.redis)) - 86_400_000;
    await queue.redis.zadd(queue.keys.rateLimited, past, group);
    // The queue's "next due at" as old (DESIGN.md §3, "Next due at").
    await queue.redis.hset(queue.keys.settings, 'reopenAt', past);
    // Its bucket full again by now, as a day of refill would leave it.
    await queue.redis.hdel(queue.keys.rateWindow, group);
    return new Date(past).toISOString();
  }

  const reopenedReason = (at: string): string =>
    `ready: the token it waited for came at ${at}; it re-joins the ring (at its tail) with the next claim, which may serve it at once (1 pending, 1 in flight)`;

  it('reads READY, off the ring, blocked by nothing, rateLimitedUntil null; the reason says the next claim re-rings it', async () => {
    const queue = engineQueue();
    const at = await reopened(queue, 'g');
    const { body } = await server.request(GroupReasonDocument, { queue: queue.name, group: 'g' });
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    expect((body.data as GroupReasonQuery).queue).toEqual({
      ring: [],
      group: {
        id: 'g',
        state: 'READY',
        onRing: false,
        blockedBy: null,
        reason: reopenedReason(at),
      },
    });
    // The snapshot (the console's read) says the same of the group, beside a ring without it.
    const snap = await server.request(QueueSnapshotDocument, { queue: queue.name, ids: ['g'] });
    const snapshot = (snap.body.data as QueueSnapshotQuery).queue.snapshot;
    expect(snapshot.ring).toEqual([]);
    expect(snapshot.picked[0]).toMatchObject({
      state: 'READY',
      onRing: false,
      reason: reopenedReason(at),
    });
    expect(snapshot.groups.edges[0]?.node).toMatchObject({ state: 'READY', blockedBy: null });
    // While the queue is paused the reason says that gate too.
    await queue.pauseQueue();
    const paused = await server.request(GroupReasonDocument, { queue: queue.name, group: 'g' });
    expect((paused.body.data as GroupReasonQuery).queue.group.reason).toBe(
      `${reopenedReason(at)}; the queue is paused: no group gets turns until resumeQueue`,
    );
    await queue.resumeQueue();
    // The next claim puts it back and serves it: rate-limited again, by a new window.
    expect((await queue.claim())?.group).toBe('g');
    const after = await server.request(GroupReasonDocument, { queue: queue.name, group: 'g' });
    expect((after.body.data as GroupReasonQuery).queue.group).toMatchObject({
      state: 'RATE_LIMITED',
      blockedBy: 'RATE_LIMITED',
    });
  });

  it('groupChanged sends it as READY with rateLimitedUntil null once the feed reads it', async () => {
    const queue = engineQueue();
    await queue.setRateLimit('g', { max: 1, windowMs: HOUR });
    await queue.enqueue('g', 1);
    await queue.enqueue('g', 2);
    await queue.claim({ leaseMs: 600_000 });
    const sub = wsSubscribe(server.ws(), GroupRateChangedDocument, {
      queue: queue.name,
      group: 'g',
    });
    try {
      expect(dataOf(await sub.events.next()).groupChanged).toMatchObject({
        state: 'RATE_LIMITED',
      });
      // The hand-moved reopening is a write to `ratelimited`: the watch reads the group again.
      const past = (await redisNow(queue.redis)) - 86_400_000;
      await queue.redis.zadd(queue.keys.rateLimited, past, 'g');
      expect(dataOf(await sub.events.next()).groupChanged).toEqual({
        id: 'g',
        state: 'READY',
        blockedBy: null,
        rateLimit: { max: 1, windowMs: HOUR, burst: 1 },
        rateLimitedUntil: null,
      });
    } finally {
      sub.close();
    }
  });
});
