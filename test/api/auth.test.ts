/**
 * DESIGN.md §6 Auth, with AUTH_TOKENS set: every operation (each query field, each mutation,
 * each subscription) for every caller (no token, an unknown token, read, worker, admin) on
 * every transport — HTTP, SSE and graphql-ws. A missing or unknown token is UNAUTHENTICATED
 * (HTTP 401; a WebSocket is closed at connection_init with 4403), a role below the operation's
 * is FORBIDDEN, and a refused call changes nothing in Redis (every key's DUMP compared).
 * Also the configuration rules around auth: no AUTH_TOKENS, no public HOST.
 */
import { print } from 'graphql';
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { Job } from '../../src/lanes/index.js';
import { ConfigError, loadConfig } from '../../src/server/config.js';
import {
  AddJobLogDocument,
  CancelOverrideDocument,
  ChangeJobPriorityDocument,
  ClaimDocument,
  ClearLimitDocument,
  ClearRateLimitDocument,
  CompleteDocument,
  EnqueueDelayedDocument,
  EnqueueDocument,
  ExtendLeaseDocument,
  GroupChangedDocument,
  GroupJobsDocument,
  GroupOverridesDocument,
  GroupsPageDocument,
  HistoryAddedDocument,
  JobByIdDocument,
  JobChangedDocument,
  PauseGroupDocument,
  PauseGroupForDocument,
  PauseQueueDocument,
  PromoteJobDocument,
  PurgeGroupDocument,
  QueueHistoryDocument,
  QueueJobsDocument,
  QueueOverviewDocument,
  QueuesDocument,
  QueueTotalsDocument,
  RemoveJobsDocument,
  RequeueDeadJobsDocument,
  ResumeGroupDocument,
  ResumeQueueDocument,
  RetryDocument,
  RingChangedDocument,
  SetLimitDocument,
  SetLimitForDocument,
  SetRateLimitDocument,
  SetRetentionDocument,
  SetWeightDocument,
  UpdateJobProgressDocument,
} from '../gql/graphql.js';
import {
  codes,
  expectNoLeak,
  expectRedisUnchanged,
  post,
  type RawRequest,
  type RawResponse,
  seedEveryKey,
  wsOperation,
} from '../support/api.js';
import { dropQueueKeys, uniqueQueueName } from '../support/lanes.js';
import {
  ROLE_AUTH_TOKENS as AUTH_TOKENS,
  ROLE_TOKENS as TOKENS,
  useTestServer,
} from '../support/server.js';

type Role = keyof typeof TOKENS;
const RANK: Record<Role, number> = { read: 1, worker: 2, admin: 3 };

/** Who calls: no token, a token that is not configured, or one of the three roles. */
const CALLERS = ['none', 'unknown', 'read', 'worker', 'admin'] as const;
type Caller = (typeof CALLERS)[number];
const tokenOf = (caller: Caller): string | undefined =>
  caller === 'none'
    ? undefined
    : caller === 'unknown'
      ? `${TOKENS.admin}-but-not-quite`
      : TOKENS[caller];

const api = useTestServer({ AUTH_TOKENS, REAP_INTERVAL_MS: '86400000' });
let r: Redis;

beforeAll(async () => {
  r = api.redis.client();
  // Each test's queue is dropped when it ends (a snapshot of thousands of leftover keys per
  // refused call cost most of this file's time); this queue stays, with a key of every kind a
  // queue has, so a refused call's stray write to some other queue still shows in the snapshot.
  const bystander = engine().queue(uniqueQueueName('auth-bystander'));
  await seedEveryKey(bystander);
  await bystander.setRateLimit('rated', { max: 5, windowMs: 60_000 });
  await bystander.setWeight('heavy', 3);
  await bystander.setLimit('timed', 2, { forMs: 3_600_000 });
  await bystander.enqueue('later', null, { delayMs: 3_600_000 });
  await bystander.enqueue('done', null);
  const done = await bystander.claim();
  await bystander.complete(done?.id as string, done?.token as string);
});

/** An operation of DESIGN.md §4, the least role it needs, and how to make it succeed. */
interface Operation {
  readonly field: string;
  /** What the test names it by, when `field` is not enough (a second query of `queue`). */
  readonly name?: string;
  readonly kind: 'query' | 'mutation' | 'subscription';
  readonly role: Role;
  /** Set up the state the operation needs (through the engine) and return the request. */
  prepare(queue: string): Promise<RawRequest>;
}

const engine = () => api.server.engine;

/** A job claimed through the engine, leased for an hour. */
async function activeJob(queue: string): Promise<Job> {
  const q = engine().queue(queue);
  await q.enqueue('g', { for: 'auth' });
  const job = await q.claim({ leaseMs: 3_600_000 });
  if (!job?.token) throw new Error('nothing claimed');
  return job;
}

const OPERATIONS: Operation[] = [
  {
    field: 'queue',
    kind: 'query',
    role: 'read',
    prepare: async (queue) => ({ query: print(QueueOverviewDocument), variables: { name: queue } }),
  },
  {
    field: 'queue',
    kind: 'query',
    role: 'read',
    prepare: async (queue) => ({ query: print(GroupsPageDocument), variables: { queue } }),
  },
  {
    field: 'queue',
    name: 'queue.job',
    kind: 'query',
    role: 'read',
    prepare: async (queue) => {
      const { id } = await engine().queue(queue).enqueue('g');
      return { query: print(JobByIdDocument), variables: { queue, id } };
    },
  },
  {
    field: 'queues',
    kind: 'query',
    role: 'read',
    prepare: async () => ({ query: print(QueuesDocument) }),
  },
  {
    field: 'setLimit',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => ({
      query: print(SetLimitDocument),
      variables: { queue, group: 'g', limit: 3 },
    }),
  },
  {
    field: 'clearLimit',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => {
      await engine().queue(queue).setLimit('g', 3);
      return { query: print(ClearLimitDocument), variables: { queue, group: 'g' } };
    },
  },
  {
    field: 'pauseGroup',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => {
      await engine().queue(queue).enqueue('g');
      return { query: print(PauseGroupDocument), variables: { queue, group: 'g' } };
    },
  },
  {
    field: 'resumeGroup',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => {
      await engine().queue(queue).enqueue('g');
      await engine().queue(queue).pause('g');
      return { query: print(ResumeGroupDocument), variables: { queue, group: 'g' } };
    },
  },
  {
    field: 'enqueue',
    kind: 'mutation',
    role: 'worker',
    prepare: async (queue) => ({
      query: print(EnqueueDocument),
      variables: { queue, group: 'g', payload: { n: 1 } },
    }),
  },
  {
    field: 'claim',
    kind: 'mutation',
    role: 'worker',
    prepare: async (queue) => {
      await engine().queue(queue).enqueue('g', { n: 1 });
      return { query: print(ClaimDocument), variables: { queue, leaseMs: 3_600_000 } };
    },
  },
  {
    field: 'complete',
    kind: 'mutation',
    role: 'worker',
    prepare: async (queue) => {
      const job = await activeJob(queue);
      return { query: print(CompleteDocument), variables: { queue, id: job.id, token: job.token } };
    },
  },
  {
    field: 'retry',
    kind: 'mutation',
    role: 'worker',
    prepare: async (queue) => {
      const job = await activeJob(queue);
      return { query: print(RetryDocument), variables: { queue, id: job.id, token: job.token } };
    },
  },
  {
    field: 'extendLease',
    kind: 'mutation',
    role: 'worker',
    prepare: async (queue) => {
      const job = await activeJob(queue);
      return {
        query: print(ExtendLeaseDocument),
        variables: { queue, id: job.id, token: job.token, leaseMs: 7_200_000 },
      };
    },
  },
  {
    field: 'updateJobProgress',
    kind: 'mutation',
    role: 'worker',
    prepare: async (queue) => {
      const job = await activeJob(queue);
      return {
        query: print(UpdateJobProgressDocument),
        variables: { queue, id: job.id, token: job.token, progress: 50 },
      };
    },
  },
  {
    field: 'addJobLog',
    kind: 'mutation',
    role: 'worker',
    prepare: async (queue) => {
      const job = await activeJob(queue);
      return {
        query: print(AddJobLogDocument),
        variables: { queue, id: job.id, token: job.token, line: 'x' },
      };
    },
  },
  {
    field: 'promoteJob',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => {
      const { id } = await engine().queue(queue).enqueue('g', null, { delayMs: 3_600_000 });
      return { query: print(PromoteJobDocument), variables: { queue, id } };
    },
  },
  {
    field: 'changeJobPriority',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => {
      const { id } = await engine().queue(queue).enqueue('g', null);
      return { query: print(ChangeJobPriorityDocument), variables: { queue, id, priority: 1 } };
    },
  },
  {
    field: 'retry',
    name: 'retry with error, stack and delayMs',
    kind: 'mutation',
    role: 'worker',
    prepare: async (queue) => {
      const job = await activeJob(queue);
      // Its answer selects no `errors { stack }`: the leak check refuses any body saying "stack".
      return {
        query:
          'mutation($queue: String!, $id: ID!, $token: String!, $error: String, $trace: String, $delayMs: SafeInt) { retry(queue: $queue, id: $id, token: $token, error: $error, stack: $trace, delayMs: $delayMs) { id state lastError } }',
        variables: { queue, id: job.id, token: job.token, error: 'e', trace: 's', delayMs: 1_000 },
      };
    },
  },
  {
    field: 'enqueue',
    name: 'enqueue with delayMs and backoff',
    kind: 'mutation',
    role: 'worker',
    prepare: async (queue) => ({
      query: print(EnqueueDelayedDocument),
      variables: { queue, group: 'g', delayMs: 60_000, backoff: { type: 'FIXED', delayMs: 1 } },
    }),
  },
  {
    field: 'queue',
    name: 'queue.jobs',
    kind: 'query',
    role: 'read',
    prepare: async (queue) => {
      await engine().queue(queue).enqueue('g', null, { delayMs: 60_000 });
      return { query: print(QueueJobsDocument), variables: { queue, state: 'DELAYED' } };
    },
  },
  {
    field: 'queue',
    name: 'queue.group.jobs',
    kind: 'query',
    role: 'read',
    prepare: async (queue) => {
      await engine().queue(queue).enqueue('g');
      return {
        query: print(GroupJobsDocument),
        variables: { queue, group: 'g', state: 'PENDING' },
      };
    },
  },
  {
    field: 'queue',
    name: 'queue.state, retention, counts, stats',
    kind: 'query',
    role: 'read',
    prepare: async (queue) => ({ query: print(QueueTotalsDocument), variables: { queue } }),
  },
  {
    field: 'requeueDeadJobs',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => {
      const q = engine().queue(queue);
      const { id } = await q.enqueue('g', null, { maxAttempts: 1 });
      const job = await q.claim();
      await q.retry(id, job?.token as string, 'died');
      return { query: print(RequeueDeadJobsDocument), variables: { queue, ids: [id] } };
    },
  },
  {
    field: 'removeJobs',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => {
      const { id } = await engine().queue(queue).enqueue('g');
      return { query: print(RemoveJobsDocument), variables: { queue, ids: [id] } };
    },
  },
  {
    field: 'purgeGroup',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => {
      await engine().queue(queue).enqueue('g');
      return { query: print(PurgeGroupDocument), variables: { queue, group: 'g' } };
    },
  },
  {
    field: 'pauseQueue',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => {
      await engine().queue(queue).enqueue('g');
      return { query: print(PauseQueueDocument), variables: { queue } };
    },
  },
  {
    field: 'resumeQueue',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => {
      await engine().queue(queue).pauseQueue();
      return { query: print(ResumeQueueDocument), variables: { queue } };
    },
  },
  {
    field: 'setRetention',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => ({
      query: print(SetRetentionDocument),
      variables: { queue, completed: { count: 5 }, dead: { ageMs: null } },
    }),
  },
  {
    field: 'setRateLimit',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => ({
      query: print(SetRateLimitDocument),
      variables: { queue, group: 'g', max: 5, windowMs: 60_000 },
    }),
  },
  {
    field: 'clearRateLimit',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => {
      await engine().queue(queue).setRateLimit('g', { max: 5, windowMs: 60_000 });
      return { query: print(ClearRateLimitDocument), variables: { queue, group: 'g' } };
    },
  },
  {
    field: 'setLimit',
    name: 'setLimit with forMs (timed override)',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => ({
      query: print(SetLimitForDocument),
      variables: { queue, group: 'g', limit: 3, forMs: 60_000 },
    }),
  },
  {
    field: 'pauseGroup',
    name: 'pauseGroup with forMs (timed override)',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => {
      await engine().queue(queue).enqueue('g');
      return {
        query: print(PauseGroupForDocument),
        variables: { queue, group: 'g', forMs: 60_000 },
      };
    },
  },
  {
    field: 'cancelOverride',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => {
      await engine().queue(queue).pause('g', { forMs: 60_000 });
      return {
        query: print(CancelOverrideDocument),
        variables: { queue, group: 'g', kind: 'PAUSE' },
      };
    },
  },
  {
    field: 'queue',
    name: 'queue.group timed overrides',
    kind: 'query',
    role: 'read',
    prepare: async (queue) => {
      await engine().queue(queue).setLimit('g', 1, { forMs: 60_000 });
      return { query: print(GroupOverridesDocument), variables: { queue, group: 'g' } };
    },
  },
  {
    field: 'setWeight',
    kind: 'mutation',
    role: 'admin',
    prepare: async (queue) => ({
      query: print(SetWeightDocument),
      variables: { queue, group: 'g', weight: 3 },
    }),
  },
  {
    field: 'queue',
    name: 'queue.history',
    kind: 'query',
    role: 'read',
    prepare: async (queue) => {
      await engine().queue(queue).pauseQueue({ actor: 'someone' });
      return { query: print(QueueHistoryDocument), variables: { queue } };
    },
  },
  {
    field: 'ringChanged',
    kind: 'subscription',
    role: 'read',
    prepare: async (queue) => {
      await engine().queue(queue).enqueue('g');
      return { query: print(RingChangedDocument), variables: { queue } };
    },
  },
  {
    field: 'groupChanged',
    kind: 'subscription',
    role: 'read',
    prepare: async (queue) => {
      await engine().queue(queue).enqueue('g');
      return { query: print(GroupChangedDocument), variables: { queue, group: 'g' } };
    },
  },
  {
    field: 'historyAdded',
    kind: 'subscription',
    role: 'read',
    prepare: async (queue) => {
      await engine().queue(queue).pauseQueue();
      return { query: print(HistoryAddedDocument), variables: { queue } };
    },
  },
  {
    field: 'jobChanged',
    kind: 'subscription',
    role: 'read',
    prepare: async (queue) => {
      const { id } = await engine().queue(queue).enqueue('g');
      return { query: print(JobChangedDocument), variables: { queue, id } };
    },
  },
];

/** What an allowed call must have answered: the field's value, not null, and no error. */
function expectAllowed(op: Operation, result: { data?: unknown; errors?: unknown } | undefined) {
  expect(result?.errors, JSON.stringify(result?.errors)).toBeUndefined();
  const data = result?.data as Record<string, unknown> | undefined;
  expect(data?.[op.field]).toBeTruthy();
  if (op.field === 'ringChanged') {
    expect(data?.ringChanged).toMatchObject({ ring: ['g'], reason: 'SNAPSHOT' });
  }
  if (op.field === 'groupChanged') expect(data?.groupChanged).toMatchObject({ id: 'g' });
  if (op.field === 'jobChanged') expect(data?.jobChanged).toMatchObject({ state: 'PENDING' });
  if (op.field === 'historyAdded') {
    expect(data?.historyAdded).toEqual({ entries: [], gap: false });
  }
}

/** The single error of a refused call, checked for its code and for leaks. */
function expectRefused(response: RawResponse, code: 'UNAUTHENTICATED' | 'FORBIDDEN'): void {
  expectNoLeak(response.text);
  expect(codes(response.json)).toEqual([code]);
  if (code === 'UNAUTHENTICATED') {
    expect(response.status).toBe(401);
    expect(response.json?.data ?? null).toBeNull();
  }
}

const verdict = (op: Operation, caller: Caller) =>
  caller === 'none' || caller === 'unknown'
    ? 'UNAUTHENTICATED'
    : RANK[caller] < RANK[op.role]
      ? 'FORBIDDEN'
      : 'allowed';

const label = (op: Operation, i: number) =>
  `${op.kind} ${op.name ?? op.field}${OPERATIONS.findIndex((o) => o.field === op.field && o.name === op.name) === i ? '' : ' (groups)'}`;

describe.each(['http', 'sse', 'ws'] as const)('over %s', (transport) => {
  /** Send `request` as `caller` on this transport, normalised to one response shape. */
  async function send(request: RawRequest, caller: Caller, op: Operation) {
    const token = tokenOf(caller);
    if (transport === 'ws') {
      const outcome = await wsOperation(api.endpoint, request, token ? { token } : {});
      for (const frame of outcome.frames) expectNoLeak(frame);
      return { ws: outcome };
    }
    // Subscriptions over plain HTTP are not a transport (406): "HTTP" sends them as SSE.
    const accept =
      transport === 'sse' || op.kind === 'subscription' ? 'text/event-stream' : undefined;
    return {
      http: await post(api.endpoint, request, {
        ...(token ? { token } : {}),
        ...(accept ? { accept } : {}),
      }),
    };
  }

  OPERATIONS.forEach((op, i) => {
    describe(label(op, i), () => {
      it.each(CALLERS)('caller %s', async (caller) => {
        const queue = uniqueQueueName(`auth-${op.field}`);
        onTestFinished(() => dropQueueKeys(engine().queue(queue)));
        const request = await op.prepare(queue);
        const expected = verdict(op, caller);

        if (expected === 'allowed') {
          const response = await send(request, caller, op);
          if (response.ws) {
            expect(response.ws.closeCode).toBeUndefined();
            expectAllowed(op, response.ws.results[0]);
          } else {
            expectNoLeak(response.http.text);
            expect(response.http.status).toBe(200);
            expectAllowed(op, response.http.json);
          }
          return;
        }

        await expectRedisUnchanged(r, async () => {
          const response = await send(request, caller, op);
          if (response.ws) {
            if (expected === 'UNAUTHENTICATED') {
              // Closed at connection_init: never acknowledged, nothing executed.
              expect(response.ws.closeCode).toBe(4403);
              expect(response.ws.results).toEqual([]);
              expect(response.ws.frames.some((f) => f.includes('connection_ack'))).toBe(false);
            } else {
              expect(response.ws.closeCode).toBeUndefined();
              expect(codes(response.ws.results[0])).toEqual(['FORBIDDEN']);
            }
          } else {
            expectRefused(response.http, expected);
          }
        });
      });
    });
  });
});

describe('tokens', () => {
  it('only an exact configured token counts, in any of its forms on HTTP', async () => {
    const request = { query: print(QueuesDocument) };
    const refused = [
      '',
      'Bearer',
      'Bearer ',
      `Basic ${TOKENS.admin}`,
      `Bearer ${TOKENS.admin.slice(0, -1)}`,
      `Bearer ${TOKENS.admin}x`,
      `Bearer ${TOKENS.admin.toUpperCase()}`,
      `Bearer read:${TOKENS.read}`,
      `Bearer ${'x'.repeat(5000)}`,
    ];
    for (const authorization of refused) {
      const response = await expectRedisUnchanged(r, () =>
        post(api.endpoint, request, { authorization }),
      );
      expectRefused(response, 'UNAUTHENTICATED');
    }
    for (const authorization of [`Bearer ${TOKENS.read}`, `bearer  ${TOKENS.read}`]) {
      const response = await post(api.endpoint, request, { authorization });
      expect(response.status).toBe(200);
      expect(response.json?.errors).toBeUndefined();
    }
  });

  it('a WebSocket is refused per operation by role, and stays open for the next one', async () => {
    // A read socket stays usable after a FORBIDDEN: the refusal is per operation.
    const client = api.ws({ token: TOKENS.read });
    const run = (query: string) =>
      new Promise<unknown[]>((resolve, reject) => {
        const results: unknown[] = [];
        client.subscribe(
          { query },
          { next: (v) => results.push(v), error: reject, complete: () => resolve(results) },
        );
      });
    const forbidden = (await run(
      'mutation { setLimit(queue: "q", group: "g", limit: 1) { id } }',
    )) as {
      errors?: { extensions?: { code?: string } }[];
    }[];
    expect(forbidden[0]?.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const allowed = (await run('{ queues { name } }')) as { data?: unknown }[];
    expect(allowed[0]?.data).toBeDefined();
  });
});

describe('configuration', () => {
  it('refuses a non-loopback HOST without AUTH_TOKENS, naming both', () => {
    for (const HOST of ['0.0.0.0', '::', '192.168.1.10', 'example.com']) {
      expect(() => loadConfig({ HOST })).toThrow(ConfigError);
      expect(() => loadConfig({ HOST })).toThrow(/HOST/);
      expect(() => loadConfig({ HOST })).toThrow(/AUTH_TOKENS/);
    }
    for (const HOST of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) {
      expect(loadConfig({ HOST }).authTokens).toBeNull();
    }
    const open = loadConfig({ HOST: '0.0.0.0', AUTH_TOKENS });
    expect(open.host).toBe('0.0.0.0');
    expect(Object.fromEntries(open.authTokens ?? [])).toEqual({
      [TOKENS.read]: 'read',
      [TOKENS.worker]: 'worker',
      [TOKENS.admin]: 'admin',
    });
  });

  it('counts a short token in the right number: 1 character, 5 characters', () => {
    expect(() => loadConfig({ AUTH_TOKENS: 'read:x' })).toThrow(/the token has 1 character, 16/);
    expect(() => loadConfig({ AUTH_TOKENS: 'read:short' })).toThrow(
      /the token has 5 characters, 16/,
    );
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['HOST', ''],
    ['REDIS_URL', 'http://127.0.0.1:6380'],
    ['DATA_DIR', ''],
    ['KEY_PREFIX', 'has space'],
    ['KEY_PREFIX', '{braces}'],
    ['AUTH_TOKENS', 'root:0123456789abcdef0123'],
    ['AUTH_TOKENS', 'read:short'],
    ['AUTH_TOKENS', 'no-colon-0123456789abcdef'],
    ['AUTH_TOKENS', `read:${TOKENS.read},admin:`],
    ['AUTH_TOKENS', `admin:${TOKENS.read},read:${TOKENS.read}`],
    ['INTROSPECTION', 'maybe'],
    ['REAP_INTERVAL_MS', '0'],
    ['REAP_INTERVAL_MS', 'soon'],
    ['RESYNC_INTERVAL_MS', '-5'],
    ['POLL_INTERVAL_MS', '1.5'],
    ['POLL_INTERVAL_MS', '86400001'],
    ['LOG_LEVEL', 'loud'],
  ])('%s=%j is refused with a message naming it', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain(name);
    // No other variable is blamed, and a token is never echoed back.
    const others = [
      'PORT',
      'HOST',
      'REDIS_URL',
      'DATA_DIR',
      'KEY_PREFIX',
      'AUTH_TOKENS',
      'INTROSPECTION',
      'REAP_INTERVAL_MS',
      'RESYNC_INTERVAL_MS',
      'POLL_INTERVAL_MS',
      'LOG_LEVEL',
    ].filter((other) => other !== name && !(name === 'HOST' && other === 'AUTH_TOKENS'));
    for (const other of others) expect(message).not.toMatch(new RegExp(`\\b${other}\\b`));
    if (name === 'AUTH_TOKENS') {
      expect(message).not.toContain(TOKENS.read);
      expect(message).not.toContain('0123456789abcdef0123');
    }
  });

  it('names every invalid variable at once', () => {
    let message = '';
    try {
      loadConfig({ PORT: 'x', LOG_LEVEL: 'loud', KEY_PREFIX: '' });
    } catch (error) {
      message = (error as Error).message;
    }
    for (const name of ['PORT', 'LOG_LEVEL', 'KEY_PREFIX']) expect(message).toContain(name);
  });
});
