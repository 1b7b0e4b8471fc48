/**
 * The steering history through the real server (DESIGN.md §4.6, §6): AUTH_TOKENS
 * entries with a name (`name=role:token`), the actor each mutation records (the token's name,
 * else its role), `Queue.history` over HTTP for the read role, and `historyAdded` over
 * graphql-ws and SSE: an entry arrives after a mutation.
 */
import { describe, expect, it } from 'vitest';
import { steering } from '../../src/resolvers/steering.js';
import { Authenticator } from '../../src/server/auth.js';
import { ConfigError, loadConfig } from '../../src/server/config.js';
import {
  HistoryAddedDocument,
  type HistoryAddedSubscription,
  PauseQueueDocument,
  PurgeGroupDocument,
  QueueHistoryDocument,
  ResumeQueueDocument,
  SetRetentionDocument,
  ViewerActorDocument,
} from '../gql/graphql.js';
import { uniqueQueueName } from '../support/lanes.js';
import { dataOf, type LiveSubscription, sseSubscribe, wsSubscribe } from '../support/live.js';
import { startTestServer, useTestServer } from '../support/server.js';

const TOKENS = {
  alice: 'alice-admin-token-0123456789',
  admin: 'plain-admin-token-0123456789',
  reader: 'reader-read-token-0123456789',
} as const;
const AUTH_TOKENS = `alice=admin:${TOKENS.alice}, admin:${TOKENS.admin},reader=read:${TOKENS.reader}`;

const api = useTestServer({
  AUTH_TOKENS,
  RESYNC_INTERVAL_MS: '60000',
  REAP_INTERVAL_MS: '86400000',
});

async function historyOf(queue: string, token: string = TOKENS.reader, group?: string) {
  return (await api.ok(QueueHistoryDocument, { queue, ...(group ? { group } : {}) }, { token }))
    .queue.history;
}

type Batch = HistoryAddedSubscription['historyAdded'];
async function nextBatch(sub: LiveSubscription<HistoryAddedSubscription>): Promise<Batch> {
  return dataOf(await sub.events.next()).historyAdded;
}

describe('AUTH_TOKENS names', () => {
  it('name=role:token names a token; role:token still works; a token may hold colons', () => {
    const config = loadConfig({
      AUTH_TOKENS: `ops.bot@night=admin:${TOKENS.alice}:with:colons,read:${TOKENS.reader}`,
    });
    expect(Object.fromEntries(config.authTokens ?? [])).toEqual({
      [`${TOKENS.alice}:with:colons`]: 'admin',
      [TOKENS.reader]: 'read',
    });
    expect(Object.fromEntries(config.authTokenNames)).toEqual({
      [`${TOKENS.alice}:with:colons`]: 'ops.bot@night',
    });
  });

  it('a bad name is refused by its entry, the token masked, the name shown only when it is one', () => {
    for (const name of ['', 'has space', 'x'.repeat(65), 'semi;colon']) {
      let error: unknown;
      try {
        loadConfig({ AUTH_TOKENS: `read:${TOKENS.reader},${name}=admin:${TOKENS.alice}` });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).toMatch(/AUTH_TOKENS=.*entry 2: the name before '='/);
      expect(message).not.toContain(TOKENS.alice);
      expect(message).not.toContain(TOKENS.reader);
    }
    expect(() => loadConfig({ AUTH_TOKENS: `bob=root:${TOKENS.alice}` })).toThrow(
      /entry 1: role "root" is not read, worker or admin/,
    );
    expect(() => loadConfig({ AUTH_TOKENS: `bob=admin:short` })).toThrow(/entry 1 \(admin\)/);
    expect(() => loadConfig({ AUTH_TOKENS: `bob=admin:short` })).toThrow(/bob=admin:\*\*\*\*/);
  });

  it("a name is one token's only, and not one the history records for someone else", () => {
    expect(() =>
      loadConfig({ AUTH_TOKENS: `alice=admin:${TOKENS.alice},alice=read:${TOKENS.reader}` }),
    ).toThrow(/entries 1 and 2 have the same name alice/);
    for (const name of ['read', 'worker', 'admin', 'timer', 'engine']) {
      let error: unknown;
      try {
        loadConfig({ AUTH_TOKENS: `${name}=read:${TOKENS.reader}` });
      } catch (e) {
        error = e;
      }
      expect(error, name).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(
        new RegExp(`entry 1: the name ${name} is what the history records for .*; choose another`),
      );
      expect((error as Error).message).not.toContain(TOKENS.reader);
    }
  });

  it('HISTORY_MAX_LEN: default 10,000, 0 turns the history off, bad values refused', () => {
    expect(loadConfig({}).historyMaxLen).toBe(10_000);
    expect(loadConfig({ HISTORY_MAX_LEN: '0' }).historyMaxLen).toBe(0);
    expect(loadConfig({ HISTORY_MAX_LEN: '25' }).historyMaxLen).toBe(25);
    for (const bad of ['-1', '1.5', 'lots', '1000001']) {
      expect(() => loadConfig({ HISTORY_MAX_LEN: bad })).toThrow(/HISTORY_MAX_LEN=/);
    }
  });

  it("the actor is the token's name, else its role; 'admin' with auth off", () => {
    const auth = new Authenticator(
      new Map([
        [TOKENS.alice, 'admin'],
        [TOKENS.admin, 'admin'],
      ]),
      new Map([[TOKENS.alice, 'alice']]),
    );
    expect(auth.actorOf(`Bearer ${TOKENS.alice}`)).toBe('alice');
    expect(auth.actorOf(TOKENS.admin)).toBe('admin');
    expect(auth.actorOf('Bearer nope-nope-nope-nope')).toBeNull();
    expect(new Authenticator(null).actorOf(undefined)).toBe('admin');
    expect(steering({ actor: 'alice' })).toEqual({ actor: 'alice' });
    expect(steering({})).toEqual({});
  });
});

describe('over the API', () => {
  it("each mutation records the caller's name (or role); the read role reads the history", async () => {
    const queue = uniqueQueueName('hist');
    await api.ok(PauseQueueDocument, { queue }, { token: TOKENS.alice });
    await api.ok(ResumeQueueDocument, { queue }, { token: TOKENS.admin });
    await api.ok(SetRetentionDocument, { queue, completed: { count: 7 } }, { token: TOKENS.alice });
    const page = await historyOf(queue);
    expect(page.totalCount).toBe(3);
    expect(page.edges.map((e) => [e.node.action, e.node.actor, e.node.group])).toEqual([
      ['setRetention', 'alice', ''],
      ['resumeQueue', 'admin', ''],
      ['pauseQueue', 'alice', ''],
    ]);
    const [latest] = page.edges;
    expect(latest?.node.after).toMatchObject({ completed: { count: 7 } });
    expect(new Date(latest?.node.at as string).getTime()).toBeGreaterThan(Date.now() - 60_000);
    const next = await api.ok(
      QueueHistoryDocument,
      { queue, first: 2, after: page.edges[0]?.cursor },
      { token: TOKENS.reader },
    );
    expect(next.queue.history.edges.map((e) => e.node.action)).toEqual([
      'resumeQueue',
      'pauseQueue',
    ]);
    expect(next.queue.history.pageInfo.hasNextPage).toBe(false);
  });

  it('viewer says who the history records the caller as', async () => {
    expect((await api.ok(ViewerActorDocument, {}, { token: TOKENS.alice })).viewer).toEqual({
      role: 'ADMIN',
      actor: 'alice',
    });
    expect((await api.ok(ViewerActorDocument, {}, { token: TOKENS.admin })).viewer.actor).toBe(
      'admin',
    );
    expect((await api.ok(ViewerActorDocument, {}, { token: TOKENS.reader })).viewer.actor).toBe(
      'reader',
    );
  });

  it('a refused mutation (FORBIDDEN, bad input) records nothing', async () => {
    const queue = uniqueQueueName('hist');
    const forbidden = await api.request(PauseQueueDocument, { queue }, { token: TOKENS.reader });
    expect(forbidden.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const bad = await api.request(
      SetRetentionDocument,
      { queue, completed: { count: -1 } },
      { token: TOKENS.alice },
    );
    expect(bad.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect((await historyOf(queue)).totalCount).toBe(0);
  });

  it('a bad cursor or page size is BAD_USER_INPUT', async () => {
    const queue = uniqueQueueName('hist');
    for (const variables of [
      { queue, after: 'not-a-cursor' },
      { queue, first: 0 },
    ]) {
      const { body } = await api.request(QueueHistoryDocument, variables, {
        token: TOKENS.reader,
      });
      expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
  });
});

describe('a server with auth off and HISTORY_MAX_LEN=2', () => {
  it("records every caller as 'admin' and keeps 2 entries per queue", async () => {
    const open = await startTestServer(api.redis.url, { HISTORY_MAX_LEN: '2' });
    try {
      const queue = uniqueQueueName('hist');
      expect(open.server.engine.queue(queue).historyMaxLen).toBe(2);
      expect((await open.request(PauseQueueDocument, { queue })).body.errors).toBeUndefined();
      expect((await open.request(ResumeQueueDocument, { queue })).body.errors).toBeUndefined();
      expect((await open.request(PauseQueueDocument, { queue })).body.errors).toBeUndefined();
      const { body } = await open.request(QueueHistoryDocument, { queue });
      const history = body.data?.queue.history;
      expect(history?.totalCount).toBe(2);
      expect(history?.edges.map((e) => [e.node.action, e.node.actor])).toEqual([
        ['pauseQueue', 'admin'],
        ['resumeQueue', 'admin'],
      ]);
    } finally {
      await open.stop();
    }
  });
});

describe('historyAdded', () => {
  it('over graphql-ws: live first (no entries), then the entry a mutation wrote', async () => {
    const queue = uniqueQueueName('hist');
    const sub = wsSubscribe(api.ws({ token: TOKENS.reader }), HistoryAddedDocument, { queue });
    expect(await nextBatch(sub)).toEqual({ entries: [], gap: false });
    await api.ok(PauseQueueDocument, { queue }, { token: TOKENS.alice });
    const batch = await nextBatch(sub);
    expect(batch.gap).toBe(false);
    expect(batch.entries).toHaveLength(1);
    expect(batch.entries[0]).toMatchObject({
      action: 'pauseQueue',
      actor: 'alice',
      group: '',
      before: { paused: false },
      after: { paused: true },
    });
    const [listed] = (await historyOf(queue)).edges;
    expect(batch.entries[0]?.id).toBe(listed?.node.id);
    sub.close();
  });

  it("a group's subscription hears that group's actions only", async () => {
    const queue = uniqueQueueName('hist');
    const q = api.server.engine.queue(queue);
    await q.enqueue('g');
    await q.enqueue('other');
    const sub = wsSubscribe(api.ws({ token: TOKENS.reader }), HistoryAddedDocument, {
      queue,
      group: 'g',
    });
    expect((await nextBatch(sub)).entries).toEqual([]);
    await api.ok(PurgeGroupDocument, { queue, group: 'other' }, { token: TOKENS.admin });
    await api.ok(PurgeGroupDocument, { queue, group: 'g' }, { token: TOKENS.admin });
    const batch = await nextBatch(sub);
    expect(batch.entries.map((e) => [e.action, e.group, e.actor])).toEqual([
      ['purgeGroup', 'g', 'admin'],
    ]);
    // A group's history is read from the queue's stream: totalCount is that stream's length.
    const page = await historyOf(queue, TOKENS.reader, 'g');
    expect(page.edges.map((e) => e.node.action)).toEqual(['purgeGroup']);
    expect(page.totalCount).toBe(2);
    sub.close();
  });

  it('over SSE: the entry a mutation wrote arrives', async () => {
    const queue = uniqueQueueName('hist');
    const sub = sseSubscribe(
      api.endpoint,
      HistoryAddedDocument,
      { queue },
      { token: TOKENS.reader },
    );
    expect((await nextBatch(sub)).entries).toEqual([]);
    await api.ok(PauseQueueDocument, { queue }, { token: TOKENS.alice });
    const batch = await nextBatch(sub);
    expect(batch.entries.map((e) => e.action)).toEqual(['pauseQueue']);
    sub.close();
  });

  it('a bad group id is BAD_USER_INPUT at subscribe', async () => {
    const sub = wsSubscribe(api.ws({ token: TOKENS.reader }), HistoryAddedDocument, {
      queue: uniqueQueueName('hist'),
      group: '',
    });
    const result = await sub.events.next();
    expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});
