/**
 * `Group.reason` and `Group.blockedBy` for every state (levels too: LEVEL, DESIGN.md §3
 * "Levels"), and the console's other reads
 * (`Queue.stats`, `Queue.groupsWithPrefix`, `Query.viewer`), through the real server over a real
 * Redis: state is made with the engine, read over HTTP and graphql-ws.
 */
import { describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import {
  GroupReasonChangedDocument,
  type GroupReasonChangedSubscription,
  GroupReasonDocument,
  type GroupReasonQuery,
  GroupsReasonsDocument,
  GroupsWithPrefixDocument,
  PauseGroupDocument,
  QueueSnapshotDocument,
  QueueStatsDocument,
  ResumeGroupDocument,
  SetLimitDocument,
  WhoAmIDocument,
} from '../gql/graphql.js';
import { dataOf, wsSubscribe } from '../support/live.js';
import { queueName } from '../support/pubsub.js';
import { startTestServer, useTestServer } from '../support/server.js';

type GroupView = GroupReasonQuery['queue']['group'];

const server = useTestServer();

/** A fresh queue on the server's own engine, to make state with. */
const engineQueue = (): Queue => server.server.engine.queue(queueName('reason'));

async function read(queue: Queue, group: string): Promise<GroupView & { ring: string[] }> {
  const { status, body } = await server.request(GroupReasonDocument, {
    queue: queue.name,
    group,
  });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  const q = (body.data as GroupReasonQuery).queue;
  return { ...q.group, ring: q.ring };
}

/** Enqueue `n` jobs of `group`. */
async function enqueue(queue: Queue, group: string, n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) await queue.enqueue(group, { i });
}

/** Claim `n` jobs; the queue must hold only `group`'s work when called. */
async function claim(queue: Queue, group: string, n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) {
    const job = await queue.claim({ leaseMs: 600_000 });
    expect(job?.group).toBe(group);
  }
}

describe('Group.reason and Group.blockedBy', () => {
  it('an unknown group is empty (IDLE), and reading it registers nothing', async () => {
    const queue = engineQueue();
    const g = await read(queue, 'nobody');
    expect(g).toMatchObject({ state: 'IDLE', onRing: false, blockedBy: 'IDLE' });
    expect(g.reason).toBe(
      'empty: nothing is waiting or in flight; it gets a turn when a job is enqueued',
    );
    expect((await queue.groups()).totalCount).toBe(0);
  });

  it('a group on the ring says where it stands, head first', async () => {
    const queue = engineQueue();
    for (const id of ['a', 'b', 'c']) await enqueue(queue, id, 2);
    const a = await read(queue, 'a');
    const b = await read(queue, 'b');
    const c = await read(queue, 'c');
    expect(a.ring).toEqual(['a', 'b', 'c']);
    expect(a).toMatchObject({ state: 'READY', onRing: true, blockedBy: null });
    expect(a.reason).toBe(
      'on the ring at position 1 of 3: next to be served; jobs are waiting and no worker is connected',
    );
    expect(b.reason).toBe(
      'on the ring at position 2 of 3; jobs are waiting and no worker is connected',
    );
    expect(c.reason).toBe(
      'on the ring at position 3 of 3; jobs are waiting and no worker is connected',
    );
    // A claim rotates the head to the tail: positions follow the ring.
    await queue.claim({ leaseMs: 600_000 });
    expect((await read(queue, 'a')).reason).toBe(
      'on the ring at position 3 of 3; jobs are waiting and no worker is connected',
    );
    expect((await read(queue, 'b')).reason).toBe(
      'on the ring at position 1 of 3: next to be served; jobs are waiting and no worker is connected',
    );
  });

  it('a group on the ring of a paused queue says the queue is paused, not that it is served', async () => {
    const q = engineQueue();
    await enqueue(q, 'a', 1);
    await q.pauseQueue();
    const a = await read(q, 'a');
    expect(a).toMatchObject({ onRing: true, blockedBy: null });
    expect(a.reason).toBe(
      'on the ring at position 1 of 1, but the queue is paused: nothing is claimed until it is resumed',
    );
    await q.resumeQueue();
    expect((await read(q, 'a')).reason).toBe(
      'on the ring at position 1 of 1: next to be served; jobs are waiting and no worker is connected',
    );
  });

  it('with the queue paused, every group state says so last; resumeQueue takes it away', async () => {
    const q = engineQueue();
    const clause = '; the queue is paused: no group gets turns until resumeQueue';
    // The finding: paused, limit 0 and rate-limited — all three lifted, the queue still holds it.
    await q.setRateLimit('all3', { max: 1, windowMs: 3_600_000 });
    await enqueue(q, 'all3', 2);
    await claim(q, 'all3', 1);
    await q.pause('all3');
    await q.setLimit('all3', 0);
    await enqueue(q, 'limited', 2);
    await q.setLimit('limited', 1);
    await claim(q, 'limited', 1);
    await q.pause('timed', { forMs: 720_000 });
    await q.pauseQueue();
    const all3 = await read(q, 'all3');
    expect(all3.blockedBy).toBe('PAUSED');
    expect(all3.reason).toMatch(
      /^paused, parked \(the limit is 0\) and rate-limited until .*: it gets no turns until it is resumed, the limit is raised and its next token comes \(1 pending, 1 in flight\); the queue is paused: no group gets turns until resumeQueue$/,
    );
    expect((await read(q, 'limited')).reason).toBe(
      `at its limit (1 of 1 in flight): it re-joins the ring when one finishes${clause}`,
    );
    expect((await read(q, 'nobody')).reason).toBe(
      `empty: nothing is waiting or in flight; it gets a turn when a job is enqueued${clause}`,
    );
    // After a pending revert's clause: the queue's gate outlasts it too.
    expect((await read(q, 'timed')).reason).toMatch(
      /^paused: .*; paused for 12 more minutes, then resumes; the queue is paused: no group gets turns until resumeQueue$/,
    );
    // A page of groups and a snapshot (whose groups are read with the queue's state) say it too.
    const page = await server.request(GroupsReasonsDocument, { queue: q.name, first: 10 });
    for (const e of page.body.data?.queue.groups.edges ?? []) {
      expect(e.node.reason.endsWith(clause)).toBe(true);
    }
    const snap = await server.request(QueueSnapshotDocument, {
      queue: q.name,
      first: 10,
      ids: ['limited'],
    });
    expect(snap.body.errors).toBeUndefined();
    const snapshot = snap.body.data?.queue.snapshot;
    for (const e of snapshot?.groups.edges ?? []) expect(e.node.reason.endsWith(clause)).toBe(true);
    expect(snapshot?.picked[0]?.reason.endsWith(clause)).toBe(true);

    await q.resumeQueue();
    expect((await read(q, 'all3')).reason).not.toContain('queue is paused');
    expect((await read(q, 'limited')).reason).toBe(
      'at its limit (1 of 1 in flight): it re-joins the ring when one finishes',
    );
  });

  it('a paused group says so, with its backlog and work in flight', async () => {
    const queue = engineQueue();
    await enqueue(queue, 'p', 3);
    await claim(queue, 'p', 1);
    await queue.pause('p');
    const g = await read(queue, 'p');
    expect(g).toMatchObject({ state: 'PAUSED', onRing: false, blockedBy: 'PAUSED' });
    expect(g.reason).toBe('paused: it gets no turns until resumed (2 pending, 1 in flight)');
    expect(g.ring).toEqual([]);
  });

  it('paused comes first, even when the group is also over its limit; the reason names both', async () => {
    const queue = engineQueue();
    await enqueue(queue, 'p', 3);
    await claim(queue, 'p', 2);
    await queue.pause('p');
    await queue.setLimit('p', 1);
    const g = await read(queue, 'p');
    expect(g.blockedBy).toBe('PAUSED');
    expect(g.reason).toBe(
      'paused and parked (limit 1, lowered below the work in flight): it gets no turns until it is resumed and 2 finish (1 pending, 2 in flight)',
    );
  });

  it('a group exactly at its limit waits for one to finish (LIMIT)', async () => {
    const queue = engineQueue();
    await queue.setLimit('l', 2);
    await enqueue(queue, 'l', 3);
    await claim(queue, 'l', 2);
    const g = await read(queue, 'l');
    expect(g).toMatchObject({ state: 'SATURATED', onRing: false, blockedBy: 'LIMIT' });
    expect(g.reason).toBe(
      'at its limit (2 of 2 in flight): it re-joins the ring when one finishes',
    );
  });

  it('at its limit with nothing waiting, the sentence says there is no backlog', async () => {
    const queue = engineQueue();
    await queue.setLimit('l', 1);
    await enqueue(queue, 'l', 1);
    await claim(queue, 'l', 1);
    const g = await read(queue, 'l');
    expect(g.blockedBy).toBe('LIMIT');
    expect(g.reason).toBe('at its limit (1 of 1 in flight), with no backlog');
  });

  it('a limit lowered below the work in flight parks the group: k must finish first', async () => {
    const queue = engineQueue();
    await enqueue(queue, 'k', 5);
    await claim(queue, 'k', 3);
    await queue.setLimit('k', 1);
    const g = await read(queue, 'k');
    expect(g).toMatchObject({ state: 'SATURATED', onRing: false, blockedBy: 'PARKED' });
    // 3 in flight under a limit of 1: all 3 must finish before active (0) < limit (1).
    expect(g.reason).toBe(
      'parked: the limit was lowered below the work in flight, 3 must finish first (3 in flight, limit 1)',
    );
    // One finishes: two to go.
    const [job] = await queue.redis.zrange(queue.keys.active, 0, 0);
    const token = await queue.redis.hget(queue.keys.job(job as string), 'token');
    await queue.complete(job as string, token as string);
    expect((await read(queue, 'k')).reason).toMatch(/^parked: .*, 2 must finish first \(2 in/);
  });

  it('limit 0 parks the group until the limit is raised', async () => {
    const queue = engineQueue();
    await enqueue(queue, 'z', 2);
    await queue.setLimit('z', 0);
    const g = await read(queue, 'z');
    expect(g).toMatchObject({ state: 'SATURATED', blockedBy: 'PARKED' });
    expect(g.reason).toBe('parked: the limit is 0, so it gets no turns until the limit is raised');
    await queue.clearLimit('z');
    await claim(queue, 'z', 1);
    await queue.setLimit('z', 0);
    expect((await read(queue, 'z')).reason).toBe(
      'parked: the limit is 0, so it gets no turns until the limit is raised (1 in flight)',
    );
  });

  it('paused at its limit 0 names both: a resume alone does not bring it back', async () => {
    const queue = engineQueue();
    await enqueue(queue, 'p0', 1);
    await queue.setLimit('p0', 0);
    await queue.pause('p0');
    expect((await read(queue, 'p0')).reason).toBe(
      'paused and parked (the limit is 0): it gets no turns until it is resumed and the limit is raised (1 pending, 0 in flight)',
    );
  });

  it('a group with no backlog but jobs in flight is busy, not idle (IDLE)', async () => {
    const queue = engineQueue();
    await enqueue(queue, 'i', 1);
    await claim(queue, 'i', 1);
    const g = await read(queue, 'i');
    expect(g).toMatchObject({ state: 'IDLE', onRing: false, blockedBy: 'IDLE' });
    expect(g.reason).toBe(
      'busy, no backlog: nothing is waiting (1 in flight); it gets a turn when a job is enqueued',
    );
  });

  it('every group of a page has its own reason', async () => {
    const queue = engineQueue();
    await enqueue(queue, 'r1', 1);
    await enqueue(queue, 'r2', 1);
    await queue.pause('r2');
    await queue.setLimit('r3', 0);
    const { body } = await server.request(GroupsReasonsDocument, { queue: queue.name, first: 10 });
    expect(body.errors).toBeUndefined();
    const nodes = body.data?.queue.groups.edges.map((e) => e.node);
    expect(nodes).toEqual([
      {
        id: 'r1',
        blockedBy: null,
        reason:
          'on the ring at position 1 of 1: next to be served; jobs are waiting and no worker is connected',
      },
      { id: 'r2', blockedBy: 'PAUSED', reason: expect.stringMatching(/^paused: /) },
      { id: 'r3', blockedBy: 'PARKED', reason: expect.stringMatching(/^parked: the limit is 0/) },
    ]);
  });

  it('groupChanged carries the reason live: pause, limit, resume', async () => {
    const queue = engineQueue();
    await enqueue(queue, 'w', 4);
    await claim(queue, 'w', 2);
    const client = server.ws();
    const sub = wsSubscribe(client, GroupReasonChangedDocument, { queue: queue.name, group: 'w' });
    type Event = GroupReasonChangedSubscription['groupChanged'];
    const next = async (): Promise<Event> => dataOf(await sub.events.next()).groupChanged;
    try {
      expect(await next()).toMatchObject({
        blockedBy: null,
        reason: expect.stringMatching(/^on the ring/),
      });
      await server.request(PauseGroupDocument, { queue: queue.name, group: 'w' });
      expect(await next()).toMatchObject({ blockedBy: 'PAUSED' });
      await server.request(ResumeGroupDocument, { queue: queue.name, group: 'w' });
      expect(await next()).toMatchObject({ blockedBy: null });
      await server.request(SetLimitDocument, { queue: queue.name, group: 'w', limit: 1 });
      expect(await next()).toMatchObject({
        blockedBy: 'PARKED',
        reason:
          'parked: the limit was lowered below the work in flight, 2 must finish first (2 in flight, limit 1)',
      });
    } finally {
      sub.close();
    }
  });

  it("groupChanged's reason reads the ring as it is at each event, for early and late subscribers", async () => {
    // Subscribers share each event's execution (src/server/plugins/sharedExecution.ts), and a
    // subscription's context lives as long as it does: neither may freeze the ring position.
    const queue = engineQueue();
    await enqueue(queue, 'a', 1);
    const vars = { queue: queue.name, group: 'a' };
    type Event = GroupReasonChangedSubscription['groupChanged'];
    const reasonOf = async (sub: { events: { next(): Promise<unknown> } }): Promise<string> =>
      (dataOf((await sub.events.next()) as never) as { groupChanged: Event }).groupChanged.reason;
    const early = wsSubscribe(server.ws(), GroupReasonChangedDocument, vars);
    const subs = [early];
    try {
      expect(await reasonOf(early)).toBe(
        'on the ring at position 1 of 1: next to be served; jobs are waiting and no worker is connected',
      );
      await enqueue(queue, 'b', 1);
      await enqueue(queue, 'c', 1);
      // Same document and variables, later: handed the watch's latest state, read afresh.
      const late = wsSubscribe(server.ws(), GroupReasonChangedDocument, vars);
      subs.push(late);
      expect(await reasonOf(late)).toBe(
        'on the ring at position 1 of 3: next to be served; jobs are waiting and no worker is connected',
      );
      // a is served and leaves the ring (its lane is empty); a new job puts it at the tail.
      expect((await queue.claim({ leaseMs: 600_000 }))?.group).toBe('a');
      await enqueue(queue, 'a', 1);
      for (const sub of subs) {
        let reason = await reasonOf(sub);
        // The claim (a's count changed) may arrive as an event of its own first.
        if (!reason.startsWith('on the ring')) reason = await reasonOf(sub);
        expect(reason).toBe(
          'on the ring at position 3 of 3; jobs are waiting and no worker is connected',
        );
      }
    } finally {
      for (const sub of subs) sub.close();
    }
  });
});

describe('Queue.stats', () => {
  it('exposes the event counters', async () => {
    const queue = engineQueue();
    await enqueue(queue, 's', 3);
    const job = await queue.claim();
    await queue.complete(job?.id as string, job?.token as string);
    const second = await queue.claim();
    await queue.retry(second?.id as string, second?.token as string, 'boom');
    const { body } = await server.request(QueueStatsDocument, { queue: queue.name });
    expect(body.errors).toBeUndefined();
    expect(body.data?.queue.stats).toEqual({
      enqueued: 3,
      claimed: 2,
      completed: 1,
      retried: 1,
      reaped: 0,
      dead: 0,
    });
  });

  it('counts past 2^31 (a busy queue gets there in days): SafeInt, not Int', async () => {
    const queue = engineQueue();
    await enqueue(queue, 's', 1);
    await queue.redis.hset(queue.keys.stats, 'claimed', '3000000000', 'completed', '2147483648');
    const { body } = await server.request(QueueStatsDocument, { queue: queue.name });
    expect(body.errors).toBeUndefined();
    expect(body.data?.queue.stats).toMatchObject({ claimed: 3_000_000_000, completed: 2 ** 31 });
  });

  it('reads as zeros for a queue never used', async () => {
    const { body } = await server.request(QueueStatsDocument, { queue: queueName('empty') });
    expect(body.data?.queue.stats).toMatchObject({ enqueued: 0, claimed: 0, completed: 0 });
  });
});

describe('Queue.groupsWithPrefix', () => {
  it('pages through the ids that start with the prefix, and counts them', async () => {
    const queue = engineQueue();
    for (const id of ['acme', 'acme-eu', 'acme-us', 'acmf', 'ac', 'beta', 'acmé']) {
      await queue.setLimit(id, 1);
    }
    const page = async (after?: string | null) => {
      const { body } = await server.request(GroupsWithPrefixDocument, {
        queue: queue.name,
        prefix: 'acme',
        first: 2,
        after: after ?? null,
      });
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      return body.data?.queue.groupsWithPrefix;
    };
    const first = await page();
    expect(first?.totalCount).toBe(3);
    expect(first?.edges.map((e) => e.node.id)).toEqual(['acme', 'acme-eu']);
    expect(first?.pageInfo.hasNextPage).toBe(true);
    const second = await page(first?.pageInfo.endCursor);
    expect(second?.edges.map((e) => e.node.id)).toEqual(['acme-us']);
    expect(second?.pageInfo.hasNextPage).toBe(false);
  });

  it('multi-byte prefixes match by bytes', async () => {
    const queue = engineQueue();
    for (const id of ['été', 'étage', 'etc']) await queue.setLimit(id, 1);
    const { body } = await server.request(GroupsWithPrefixDocument, {
      queue: queue.name,
      prefix: 'ét',
    });
    expect(body.data?.queue.groupsWithPrefix.edges.map((e) => e.node.id)).toEqual(['étage', 'été']);
  });

  it('refuses an empty prefix with BAD_USER_INPUT', async () => {
    const { body } = await server.request(GroupsWithPrefixDocument, {
      queue: queueName('bad'),
      prefix: '',
    });
    expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('Query.viewer', () => {
  it('is ADMIN with auth off', async () => {
    const { body } = await server.request(WhoAmIDocument, {});
    expect(body.data?.viewer.role).toBe('ADMIN');
  });

  it("names the token's role with AUTH_TOKENS set", async () => {
    const reader = 'r'.repeat(24);
    const admin = 'a'.repeat(24);
    const authed = await startTestServer(server.redis.url, {
      AUTH_TOKENS: `read:${reader},admin:${admin}`,
    });
    try {
      const asRead = await authed.request(WhoAmIDocument, {}, { token: reader });
      expect(asRead.body.data?.viewer.role).toBe('READ');
      const asAdmin = await authed.request(WhoAmIDocument, {}, { token: admin });
      expect(asAdmin.body.data?.viewer.role).toBe('ADMIN');
      const anonymous = await authed.request(WhoAmIDocument, {});
      expect(anonymous.status).toBe(401);
    } finally {
      await authed.stop();
    }
  });
});

// Levels (DESIGN.md §3, "Levels"): LEVEL and the reason naming both levels, for a group on the
// rota behind a more urgent level; the rota in claim order in `Queue.ring` and a snapshot.
describe('levels over GraphQL', () => {
  it('a group behind a more urgent level is blocked by LEVEL, and its reason names both', async () => {
    const q = engineQueue();
    await q.enqueue('a', 0);
    await q.enqueue('x', 0, { priority: 2 });
    await q.enqueue('z', 0, { priority: 8 });
    const x = await read(q, 'x');
    const a = await read(q, 'a');
    const z = await read(q, 'z');
    expect(x.ring).toEqual(['x', 'a', 'z']);
    expect(x).toMatchObject({ state: 'READY', onRing: true, blockedBy: null });
    expect(x.reason).toBe(
      'on the ring at position 1 of 3: next to be served; jobs are waiting and no worker is connected',
    );
    expect(a).toMatchObject({ state: 'READY', onRing: true, blockedBy: 'LEVEL' });
    expect(a.reason).toBe(
      'on the ring at position 2 of 3, at priority level 5: a more urgent level (2) is served first while it has a group ready',
    );
    expect(z.blockedBy).toBe('LEVEL');
    expect(z.reason).toBe(
      'on the ring at position 3 of 3, at priority level 8: a more urgent level (2) is served first while it has a group ready',
    );
    // x served and empty: a is the most urgent now, z still behind it.
    expect((await q.claim())?.group).toBe('x');
    expect(await read(q, 'a')).toMatchObject({
      blockedBy: null,
      reason:
        'on the ring at position 1 of 2: next to be served; jobs are waiting and no worker is connected',
    });
    expect((await read(q, 'z')).reason).toContain('a more urgent level (5)');
  });

  it('a snapshot shows the rota in claim order, and its groups say the same', async () => {
    const q = engineQueue();
    await q.enqueue('a', 0);
    await q.enqueue('z', 0, { priority: 9 });
    await q.enqueue('x', 0, { priority: 1 });
    const { body } = await server.request(QueueSnapshotDocument, {
      queue: q.name,
      first: 10,
      ids: ['z'],
    });
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    const snapshot = body.data?.queue.snapshot;
    expect(snapshot?.ring).toEqual(['x', 'a', 'z']);
    expect(snapshot?.counts.onRing).toBe(3);
    const byId = new Map(snapshot?.groups.edges.map((e) => [e.node.id, e.node]));
    expect(byId.get('x')).toMatchObject({ blockedBy: null });
    expect(byId.get('a')).toMatchObject({ blockedBy: 'LEVEL' });
    expect(snapshot?.picked[0]?.reason).toBe(
      'on the ring at position 3 of 3, at priority level 9: a more urgent level (1) is served first while it has a group ready',
    );
  });
});
