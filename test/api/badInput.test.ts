/**
 * DESIGN.md §5 through the API: bad input on every argument of every field — queries and
 * mutations over HTTP, subscriptions over SSE and graphql-ws — is answered with the right
 * `extensions.code`, changes nothing in Redis (every key's DUMP and PTTL compared), and no
 * response body holds a stack, a file path or Redis' own text. The values are the tables of
 * test/fixtures/badInput.ts, which test/lanes/badInput.test.ts gives the engine too. Then: the
 * same requests with good values are accepted, literals of the wrong type fail validation, and
 * values sized to hurt (a 300,000-character group id, a payload nested 100,000 deep) are refused
 * like small ones with the server still up.
 */
import { describe, expect, it } from 'vitest';
import { type Job, Limits } from '../../src/lanes/index.js';
import { cursor } from '../../src/lanes/validate.js';
import {
  ACTION_IDS,
  ACTION_LIMITS,
  BACKOFFS,
  type BadValue,
  COSTS,
  CRONS,
  CURSORS,
  DEBOUNCES,
  DECIMAL_NOT_FOUND,
  DELAYS,
  EVERY_MS,
  FAILURE_TEXTS,
  FIRSTS,
  FOR_MS,
  GROUP_IDS,
  GROUP_RANKING_NAMES,
  JOB_CURSORS,
  JOB_IDS,
  JOB_STATES,
  LEASES,
  LIMITS,
  LITERAL_MUTATIONS,
  LITERAL_QUERIES,
  LOG_LINES,
  MAX_ATTEMPTS,
  MAX_PENDINGS,
  NULL,
  OVERRIDE_KIND_NAMES,
  OVERSIZED,
  PAYLOADS,
  PRIORITIES,
  PROGRESSES,
  QUEUE,
  QUEUE_NAMES,
  RATE_BURSTS,
  RATE_MAXES,
  RATE_WINDOWS,
  RETENTION_AGES,
  RETENTION_COUNTS,
  RETENTION_POLICIES,
  RUN_AT_TEXTS,
  THROUGHPUT_MINUTES,
  TIMEZONES,
  TOKENS,
  TOP_FIRSTS,
  UNREMOVABLE_STATES,
  WEIGHTS,
  WORKER_IDS,
} from '../fixtures/badInput.js';
import {
  codes,
  expectNoLeak,
  expectRedisUnchanged,
  post,
  type RawRequest,
  type RawResponse,
  wsOperation,
} from '../support/api.js';
import { expectServerUp } from '../support/hostile.js';
import { useSeededServer } from '../support/seededServer.js';

const seeded = useSeededServer(QUEUE);

// Fields ----------------------------------------------------------------------------------------

interface Field {
  readonly name: string;
  readonly kind: 'query' | 'mutation' | 'subscription';
  /** Variable definitions, the field with its arguments and a selection. */
  readonly document: string;
  /**
   * Valid variables for `queue` (default the fixture's {@link QUEUE}; a cursor is its listing's):
   * a test replaces one of them with a bad value.
   */
  valid(queue?: string): Record<string, unknown>;
  /** Each argument's bad values. */
  readonly bad: Record<string, readonly BadValue[]>;
}

const FIELDS: Field[] = [
  {
    name: 'Query.queue',
    kind: 'query',
    document: 'query($name: String!) { queue(name: $name) { name ring } }',
    valid: () => ({ name: QUEUE }),
    bad: { name: QUEUE_NAMES },
  },
  {
    name: 'Queue.group',
    kind: 'query',
    document:
      'query($queue: String!, $id: String!) { queue(name: $queue) { group(id: $id) { id state } } }',
    valid: () => ({ queue: QUEUE, id: 'a' }),
    bad: { queue: QUEUE_NAMES, id: GROUP_IDS },
  },
  {
    name: 'Queue.groups',
    kind: 'query',
    document:
      'query($queue: String!, $first: Int, $after: String) { queue(name: $queue) { groups(first: $first, after: $after) { totalCount edges { cursor } } } }',
    valid: (queue = QUEUE) => ({
      queue,
      first: 2,
      after: cursor.encode(['groups', queue, null], 'a'),
    }),
    bad: { queue: QUEUE_NAMES, first: FIRSTS, after: CURSORS },
  },
  {
    name: 'Queue.throughput',
    kind: 'query',
    document:
      'query($queue: String!, $minutes: Int) { queue(name: $queue) { throughput(minutes: $minutes) { at failed } } }',
    valid: () => ({ queue: QUEUE, minutes: 5 }),
    bad: { queue: QUEUE_NAMES, minutes: THROUGHPUT_MINUTES },
  },
  {
    name: 'Queue.topGroups',
    kind: 'query',
    document:
      'query($queue: String!, $by: GroupRanking!, $first: Int) { queue(name: $queue) { topGroups(by: $by, first: $first) { id } } }',
    valid: () => ({ queue: QUEUE, by: 'PENDING', first: 5 }),
    bad: { queue: QUEUE_NAMES, by: GROUP_RANKING_NAMES, first: TOP_FIRSTS },
  },
  {
    name: 'Mutation.setLimit',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $group: String!, $limit: Int!) { setLimit(queue: $queue, group: $group, limit: $limit) { id limit } }',
    valid: () => ({ queue: QUEUE, group: 'c', limit: 1 }),
    bad: {
      queue: QUEUE_NAMES,
      group: GROUP_IDS,
      limit: [...LIMITS, NULL],
    },
  },
  {
    name: 'Mutation.setRateLimit',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $group: String!, $max: Int!, $windowMs: SafeInt!, $burst: Int) { setRateLimit(queue: $queue, group: $group, max: $max, windowMs: $windowMs, burst: $burst) { id rateLimit { max windowMs burst } } }',
    valid: () => ({ queue: QUEUE, group: 'c', max: 5, windowMs: 60_000, burst: 8 }),
    bad: {
      queue: QUEUE_NAMES,
      group: GROUP_IDS,
      max: RATE_MAXES,
      windowMs: RATE_WINDOWS,
      burst: RATE_BURSTS,
    },
  },
  {
    name: 'Mutation.setLimit with forMs',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $group: String!, $limit: Int!, $forMs: SafeInt) { setLimit(queue: $queue, group: $group, limit: $limit, forMs: $forMs) { id limit } }',
    valid: () => ({ queue: QUEUE, group: 'c', limit: 1, forMs: 60_000 }),
    bad: { forMs: FOR_MS },
  },
  {
    name: 'Mutation.pauseGroup with forMs',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $group: String!, $forMs: SafeInt) { pauseGroup(queue: $queue, group: $group, forMs: $forMs) { id } }',
    valid: () => ({ queue: QUEUE, group: 'a', forMs: 60_000 }),
    bad: { forMs: FOR_MS },
  },
  {
    name: 'Mutation.cancelOverride',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $group: String!, $kind: OverrideKind!) { cancelOverride(queue: $queue, group: $group, kind: $kind) { id } }',
    valid: () => ({ queue: QUEUE, group: 'a', kind: 'LIMIT' }),
    bad: { queue: QUEUE_NAMES, group: GROUP_IDS, kind: OVERRIDE_KIND_NAMES },
  },
  {
    name: 'Mutation.setWeight',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $group: String!, $weight: Int!) { setWeight(queue: $queue, group: $group, weight: $weight) { id weight } }',
    valid: () => ({ queue: QUEUE, group: 'c', weight: 2 }),
    bad: { queue: QUEUE_NAMES, group: GROUP_IDS, weight: [...WEIGHTS, NULL] },
  },
  {
    name: 'Mutation.setQueueLimit',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $limit: Int!, $forMs: SafeInt) { setQueueLimit(queue: $queue, limit: $limit, forMs: $forMs) { name limit } }',
    valid: () => ({ queue: QUEUE, limit: 50, forMs: 60_000 }),
    bad: { queue: QUEUE_NAMES, limit: [...LIMITS, NULL], forMs: FOR_MS },
  },
  {
    name: 'Mutation.clearQueueLimit',
    kind: 'mutation',
    document: 'mutation($queue: String!) { clearQueueLimit(queue: $queue) { name limit } }',
    valid: () => ({ queue: QUEUE }),
    bad: { queue: QUEUE_NAMES },
  },
  {
    name: 'Mutation.setReserve',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $group: String!, $reserve: Int!) { setReserve(queue: $queue, group: $group, reserve: $reserve) { id reserve } }',
    valid: () => ({ queue: QUEUE, group: 'c', reserve: 0 }),
    bad: { queue: QUEUE_NAMES, group: GROUP_IDS, reserve: [...LIMITS, NULL] },
  },
  {
    name: 'Mutation.upsertSchedule every',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $id: ID!, $group: String!, $everyMs: SafeInt, $payload: JSON, $maxAttempts: Int, $backoff: BackoffInput, $priority: Int) { upsertSchedule(queue: $queue, id: $id, group: $group, everyMs: $everyMs, payload: $payload, maxAttempts: $maxAttempts, backoff: $backoff, priority: $priority) { id } }',
    valid: () => ({ queue: QUEUE, id: 's', group: 'a', everyMs: 60_000, payload: { n: 1 } }),
    bad: {
      queue: QUEUE_NAMES,
      group: GROUP_IDS,
      everyMs: EVERY_MS,
      payload: PAYLOADS,
      maxAttempts: MAX_ATTEMPTS,
      backoff: BACKOFFS,
      priority: PRIORITIES,
    },
  },
  {
    name: 'Mutation.upsertSchedule cron',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $id: ID!, $group: String!, $cron: String, $timezone: String) { upsertSchedule(queue: $queue, id: $id, group: $group, cron: $cron, timezone: $timezone) { id } }',
    valid: () => ({ queue: QUEUE, id: 's', group: 'a', cron: '0 30 2 * * *', timezone: 'UTC' }),
    bad: { cron: CRONS, timezone: TIMEZONES },
  },
  {
    name: 'Mutation.removeSchedule',
    kind: 'mutation',
    document: 'mutation($queue: String!, $id: ID!) { removeSchedule(queue: $queue, id: $id) }',
    valid: () => ({ queue: QUEUE, id: 's' }),
    bad: { queue: QUEUE_NAMES },
  },
  {
    name: 'Queue.schedules',
    kind: 'query',
    document:
      'query($queue: String!, $first: Int, $after: String) { queue(name: $queue) { schedules(first: $first, after: $after) { totalCount } } }',
    valid: () => ({ queue: QUEUE, first: 10 }),
    bad: { queue: QUEUE_NAMES, first: FIRSTS, after: CURSORS },
  },
  {
    name: 'Mutation.setMaxPending',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $group: String!, $maxPending: Int) { setMaxPending(queue: $queue, group: $group, maxPending: $maxPending) { id maxPending } }',
    valid: () => ({ queue: QUEUE, group: 'c', maxPending: 5 }),
    bad: { queue: QUEUE_NAMES, group: GROUP_IDS, maxPending: MAX_PENDINGS },
  },
  {
    name: 'Mutation.setDefaultMaxPending',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $maxPending: Int) { setDefaultMaxPending(queue: $queue, maxPending: $maxPending) { name defaultMaxPending } }',
    valid: () => ({ queue: QUEUE, maxPending: 5 }),
    bad: { queue: QUEUE_NAMES, maxPending: MAX_PENDINGS },
  },
  ...(['clearLimit', 'pauseGroup', 'resumeGroup', 'clearRateLimit'] as const).map(
    (name): Field => ({
      name: `Mutation.${name}`,
      kind: 'mutation',
      document: `mutation($queue: String!, $group: String!) { ${name}(queue: $queue, group: $group) { id } }`,
      valid: () => ({ queue: QUEUE, group: 'a' }),
      bad: { queue: QUEUE_NAMES, group: GROUP_IDS },
    }),
  ),
  {
    name: 'Mutation.enqueue',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $group: String!, $payload: JSON, $maxAttempts: Int, $delayMs: SafeInt, $runAt: DateTime, $backoff: BackoffInput, $priority: Int, $debounce: DebounceInput, $cost: Int) { enqueue(queue: $queue, group: $group, payload: $payload, maxAttempts: $maxAttempts, delayMs: $delayMs, runAt: $runAt, backoff: $backoff, priority: $priority, debounce: $debounce, cost: $cost) { id } }',
    valid: () => ({
      queue: QUEUE,
      group: 'c',
      payload: { ok: true },
      maxAttempts: 2,
      backoff: { type: 'EXPONENTIAL', delayMs: 1_000, maxDelayMs: 60_000, jitter: 0.5 },
      priority: 2,
      cost: 2,
    }),
    bad: {
      queue: QUEUE_NAMES,
      group: GROUP_IDS,
      payload: PAYLOADS,
      maxAttempts: MAX_ATTEMPTS,
      delayMs: DELAYS,
      runAt: RUN_AT_TEXTS,
      backoff: BACKOFFS,
      priority: PRIORITIES,
      cost: COSTS,
      debounce: DEBOUNCES,
    },
  },
  {
    name: 'Mutation.changeJobPriority',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $id: ID!, $priority: Int!) { changeJobPriority(queue: $queue, id: $id, priority: $priority) { id priority } }',
    valid: () => ({ queue: QUEUE, id: seeded.active.id, priority: 3 }),
    bad: { queue: QUEUE_NAMES, id: JOB_IDS, priority: [...PRIORITIES, NULL] },
  },
  {
    name: 'Mutation.claim',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $leaseMs: Int, $workerId: String) { claim(queue: $queue, leaseMs: $leaseMs, workerId: $workerId) { id } }',
    valid: () => ({ queue: QUEUE, leaseMs: 1_000 }),
    bad: { queue: QUEUE_NAMES, leaseMs: LEASES, workerId: WORKER_IDS },
  },
  {
    name: 'Mutation.complete',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $id: ID!, $token: String!, $result: JSON) { complete(queue: $queue, id: $id, token: $token, result: $result) { id state } }',
    valid: () => ({ queue: QUEUE, id: seeded.active.id, token: seeded.active.token }),
    bad: { queue: QUEUE_NAMES, id: JOB_IDS, token: TOKENS, result: PAYLOADS },
  },
  {
    name: 'Mutation.retry',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $id: ID!, $token: String!, $error: String, $failureStack: String, $delayMs: SafeInt) { retry(queue: $queue, id: $id, token: $token, error: $error, stack: $failureStack, delayMs: $delayMs) { id state } }',
    valid: () => ({
      queue: QUEUE,
      id: seeded.active.id,
      token: seeded.active.token,
      error: 'failed',
      // Not `$stack`: a refusal echoes the variable's name, and no body may say "stack" (§5).
      failureStack: 'Error: failed',
      delayMs: 1_000,
    }),
    bad: {
      queue: QUEUE_NAMES,
      id: JOB_IDS,
      token: TOKENS,
      error: FAILURE_TEXTS,
      failureStack: FAILURE_TEXTS,
      delayMs: DELAYS,
    },
  },
  {
    name: 'Mutation.promoteJob',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $id: ID!) { promoteJob(queue: $queue, id: $id) { id state } }',
    valid: () => ({ queue: QUEUE, id: seeded.active.id }),
    bad: { queue: QUEUE_NAMES, id: JOB_IDS },
  },
  {
    name: 'Mutation.extendLease',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $id: ID!, $token: String!, $leaseMs: Int!) { extendLease(queue: $queue, id: $id, token: $token, leaseMs: $leaseMs) { id } }',
    valid: () => ({
      queue: QUEUE,
      id: seeded.active.id,
      token: seeded.active.token,
      leaseMs: 60_000,
    }),
    bad: {
      queue: QUEUE_NAMES,
      id: JOB_IDS,
      token: TOKENS,
      leaseMs: [...LEASES, NULL],
    },
  },
  {
    name: 'Mutation.updateJobProgress',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $id: ID!, $token: String!, $progress: JSON!) { updateJobProgress(queue: $queue, id: $id, token: $token, progress: $progress) { id } }',
    valid: () => ({
      queue: QUEUE,
      id: seeded.active.id,
      token: seeded.active.token,
      progress: 5,
    }),
    bad: { queue: QUEUE_NAMES, id: JOB_IDS, token: TOKENS, progress: PROGRESSES },
  },
  {
    name: 'Mutation.addJobLog',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $id: ID!, $token: String!, $line: String!) { addJobLog(queue: $queue, id: $id, token: $token, line: $line) { at } }',
    valid: () => ({ queue: QUEUE, id: seeded.active.id, token: seeded.active.token, line: 'x' }),
    bad: { queue: QUEUE_NAMES, id: JOB_IDS, token: TOKENS, line: LOG_LINES },
  },
  {
    name: 'Queue.jobs',
    kind: 'query',
    document:
      'query($queue: String!, $state: JobState!, $group: String, $first: Int, $after: String) { queue(name: $queue) { jobs(state: $state, group: $group, first: $first, after: $after) { totalCount edges { cursor } } } }',
    valid: () => ({ queue: QUEUE, state: 'DEAD', first: 2 }),
    bad: {
      queue: QUEUE_NAMES,
      state: JOB_STATES,
      group: GROUP_IDS.filter((v) => v !== NULL),
      first: FIRSTS,
      after: JOB_CURSORS,
    },
  },
  {
    name: 'Group.jobs',
    kind: 'query',
    document:
      'query($queue: String!, $id: String!, $state: JobState!, $first: Int, $after: String) { queue(name: $queue) { group(id: $id) { jobs(state: $state, first: $first, after: $after) { totalCount } } } }',
    valid: () => ({ queue: QUEUE, id: 'a', state: 'PENDING' }),
    bad: { id: GROUP_IDS, state: JOB_STATES, first: FIRSTS, after: JOB_CURSORS },
  },
  {
    name: 'Mutation.requeueDeadJobs (ids)',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $ids: [ID!], $resetAttempts: Boolean, $limit: Int) { requeueDeadJobs(queue: $queue, ids: $ids, resetAttempts: $resetAttempts, limit: $limit) { count } }',
    valid: () => ({ queue: QUEUE, ids: ['987654321'], resetAttempts: false, limit: 10 }),
    bad: { queue: QUEUE_NAMES, ids: ACTION_IDS, limit: ACTION_LIMITS },
  },
  {
    name: 'Mutation.requeueDeadJobs (group)',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $group: String, $limit: Int) { requeueDeadJobs(queue: $queue, group: $group, limit: $limit) { count } }',
    valid: () => ({ queue: QUEUE, group: 'nobody', limit: 10 }),
    bad: { group: GROUP_IDS.filter((v) => v !== NULL), limit: ACTION_LIMITS },
  },
  {
    name: 'Mutation.removeJobs (ids)',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $ids: [ID!], $state: JobState) { removeJobs(queue: $queue, ids: $ids, state: $state) { count } }',
    valid: () => ({ queue: QUEUE, ids: ['987654321'], state: 'DEAD' }),
    bad: {
      queue: QUEUE_NAMES,
      ids: ACTION_IDS,
      state: [...JOB_STATES.filter((v) => v !== NULL), ...UNREMOVABLE_STATES],
    },
  },
  {
    name: 'Mutation.removeJobs (group)',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $group: String, $state: JobState, $limit: Int) { removeJobs(queue: $queue, group: $group, state: $state, limit: $limit) { count } }',
    valid: () => ({ queue: QUEUE, group: 'nobody', state: 'DEAD', limit: 10 }),
    bad: {
      group: GROUP_IDS.filter((v) => v !== NULL),
      // Null is no state, which a group needs.
      state: [
        ...JOB_STATES.filter((v) => v !== NULL),
        ...UNREMOVABLE_STATES,
        { label: 'null', value: null, engine: 'BAD_USER_INPUT', api: 'BAD_USER_INPUT' },
      ],
      limit: ACTION_LIMITS,
    },
  },
  {
    name: 'Mutation.purgeGroup',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $group: String!, $limit: Int) { purgeGroup(queue: $queue, group: $group, limit: $limit) { count } }',
    valid: () => ({ queue: QUEUE, group: 'nobody', limit: 10 }),
    bad: { queue: QUEUE_NAMES, group: GROUP_IDS, limit: ACTION_LIMITS },
  },
  ...(['pauseQueue', 'resumeQueue'] as const).map(
    (name): Field => ({
      name: `Mutation.${name}`,
      kind: 'mutation',
      document: `mutation($queue: String!) { ${name}(queue: $queue) { name state } }`,
      valid: () => ({ queue: QUEUE }),
      bad: { queue: QUEUE_NAMES },
    }),
  ),
  {
    name: 'Mutation.setRetention',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $completed: RetentionInput, $count: Int, $ageMs: SafeInt) { setRetention(queue: $queue, completed: $completed, dead: { count: $count, ageMs: $ageMs }) { name } }',
    valid: () => ({ queue: QUEUE, completed: { count: 5 }, count: 10, ageMs: 60_000 }),
    bad: {
      queue: QUEUE_NAMES,
      completed: RETENTION_POLICIES,
      count: RETENTION_COUNTS,
      ageMs: RETENTION_AGES,
    },
  },
  {
    name: 'Subscription.ringChanged',
    kind: 'subscription',
    document: 'subscription($queue: String!) { ringChanged(queue: $queue) { ring reason } }',
    valid: () => ({ queue: QUEUE }),
    bad: { queue: QUEUE_NAMES },
  },
  {
    name: 'Queue.job',
    kind: 'query',
    document:
      'query($queue: String!, $id: ID!) { queue(name: $queue) { job(id: $id) { id state } } }',
    valid: () => ({ queue: QUEUE, id: seeded.active.id }),
    // An id that names no job reads as null (below); only a variable of the wrong type is refused.
    bad: { queue: QUEUE_NAMES, id: JOB_IDS.filter((v) => v.coercion) },
  },
  {
    name: 'Subscription.jobChanged',
    kind: 'subscription',
    document:
      'subscription($queue: String!, $id: ID!) { jobChanged(queue: $queue, id: $id) { id state } }',
    valid: () => ({ queue: QUEUE, id: seeded.active.id }),
    // A decimal id that names no job is not refused: its first event is null (the job is gone).
    bad: { queue: QUEUE_NAMES, id: JOB_IDS.filter((v) => v.label !== DECIMAL_NOT_FOUND) },
  },
  {
    name: 'Subscription.groupChanged',
    kind: 'subscription',
    document:
      'subscription($queue: String!, $group: String!) { groupChanged(queue: $queue, group: $group) { id state } }',
    valid: () => ({ queue: QUEUE, group: 'a' }),
    bad: { queue: QUEUE_NAMES, group: GROUP_IDS },
  },
];

/** The common checks on any refused answer: one error, the code, no leak. */
function expectRefusedWith(response: RawResponse, code: string): void {
  expectNoLeak(response.text);
  expect(codes(response.json), response.text.slice(0, 400)).toEqual([code]);
}

describe.each(FIELDS)('$name', (field) => {
  // The values JSON can carry; the others are the engine's alone.
  const cases = Object.entries(field.bad).flatMap(([argument, values]) =>
    values.flatMap(({ label, value, api: code, coercion = false }) =>
      code === undefined ? [] : [{ argument, label, value, code, coercion }],
    ),
  );
  const transports = field.kind === 'subscription' ? (['sse', 'ws'] as const) : (['http'] as const);

  describe.each(transports)('over %s', (transport) => {
    it.each(cases)('$argument: $label → $code', async ({ argument, value, code, coercion }) => {
      const request: RawRequest = {
        query: field.document,
        variables: { ...field.valid(), [argument]: value },
      };
      await expectRedisUnchanged(seeded.r, async () => {
        if (transport === 'ws') {
          const outcome = await wsOperation(seeded.api.endpoint, request);
          for (const frame of outcome.frames) expectNoLeak(frame);
          expect(outcome.closeCode).toBeUndefined();
          expect(codes(outcome.results[0])).toEqual([code]);
          // A variable refused while coercing carries no HTTP details over the socket.
          if (coercion) expect(outcome.results[0]?.errors?.[0]?.extensions).toEqual({ code });
          return;
        }
        const response = await post(
          seeded.api.endpoint,
          request,
          transport === 'sse' ? { accept: 'text/event-stream' } : {},
        );
        expectRefusedWith(response, code);
        if (coercion) {
          // Nothing ran, so there is no `data`, and HTTP says 400.
          expect(response.json?.data).toBeUndefined();
          if (transport === 'http') expect(response.status).toBe(400);
        } else {
          // A field error: the caller's mistake, never a server error.
          expect(response.status).toBe(200);
          // `data` is null, or holds the (nullable) field as null: nothing was answered.
          if (field.kind !== 'subscription') {
            expect(JSON.stringify(response.json?.data)).toMatch(/^(null|\{"\w+":null\})$/);
          }
        }
      });
    });
  });
});

describe('Queue.job: an id that names no job reads as null, writing nothing', () => {
  const ids = JOB_IDS.filter((v) => v.api !== undefined && !v.coercion);
  it.each(ids)('$label', async ({ value }) => {
    const response = await expectRedisUnchanged(seeded.r, () =>
      post(seeded.api.endpoint, {
        query: 'query($queue: String!, $id: ID!) { queue(name: $queue) { job(id: $id) { id } } }',
        variables: { queue: QUEUE, id: value },
      }),
    );
    expectNoLeak(response.text);
    expect(response.json, response.text).toEqual({ data: { queue: { job: null } } });
  });
});

describe('the same requests with valid values are accepted (the refusals above are not blanket)', () => {
  it.each(FIELDS.filter((f) => f.kind !== 'subscription'))('$name', async (field) => {
    // On a queue of its own, with a job of its own: the fixture's stays as it is.
    const queue = `accept-${field.name.replace(/\W/g, '-')}`;
    const q = seeded.api.server.engine.queue(queue);
    await q.enqueue('g', { n: 1 });
    const job = (await q.claim({ leaseMs: 3_600_000 })) as Job;
    await q.enqueue('g', { n: 2 });
    const variables: Record<string, unknown> = { ...field.valid(queue), queue, name: queue };
    if ('id' in field.valid()) Object.assign(variables, { id: job.id });
    if ('token' in field.valid()) Object.assign(variables, { token: job.token });
    const response = await post(seeded.api.endpoint, { query: field.document, variables });
    expect(response.json?.errors, response.text).toBeUndefined();
    expect(response.status).toBe(200);
  });

  it('values at each bound are accepted', async () => {
    const q = 'bounds';
    const gql = (query: string, variables: Record<string, unknown>) =>
      post(seeded.api.endpoint, { query, variables });
    const okay = async (response: Promise<RawResponse>) => {
      const { text, json, status } = await response;
      expect(json?.errors, text.slice(0, 300)).toBeUndefined();
      expect(status).toBe(200);
      return json?.data as Record<string, Record<string, unknown>>;
    };
    const setLimit =
      'mutation($queue: String!, $group: String!, $limit: Int!) { setLimit(queue: $queue, group: $group, limit: $limit) { id limit } }';
    const longQueue = 'Q'.repeat(128);
    const longGroup = `${'é'.repeat(127)}xx`; // 256 bytes
    expect(Buffer.byteLength(longGroup)).toBe(256);
    await okay(gql(setLimit, { queue: longQueue, group: longGroup, limit: 1_000_000 }));
    await okay(gql(setLimit, { queue: `a.b_c:d-${q}`, group: 'ünïcødé 🎉 group', limit: 0 }));
    const enqueue =
      'mutation($queue: String!, $group: String!, $payload: JSON, $maxAttempts: Int) { enqueue(queue: $queue, group: $group, payload: $payload, maxAttempts: $maxAttempts) { id payload } }';
    // A payload whose JSON text is exactly the limit.
    const payload = 'é'.repeat(Limits.payloadBytes / 2 - 1);
    expect(Buffer.byteLength(JSON.stringify(payload))).toBe(Limits.payloadBytes);
    const big = await okay(gql(enqueue, { queue: q, group: 'g', payload, maxAttempts: 100 }));
    expect(big.enqueue?.payload).toBe(payload);
    await okay(gql(enqueue, { queue: q, group: 'g', maxAttempts: 1 }));
    const claim =
      'mutation($queue: String!, $leaseMs: Int) { claim(queue: $queue, leaseMs: $leaseMs) { id token } }';
    const one = (await okay(gql(claim, { queue: q, leaseMs: 86_400_000 }))).claim;
    await okay(gql(claim, { queue: q, leaseMs: 1 }));
    const extend =
      'mutation($queue: String!, $id: ID!, $token: String!, $leaseMs: Int!) { extendLease(queue: $queue, id: $id, token: $token, leaseMs: $leaseMs) { id } }';
    await okay(gql(extend, { queue: q, id: one?.id, token: one?.token, leaseMs: 86_400_000 }));
    await okay(gql(extend, { queue: q, id: one?.id, token: one?.token, leaseMs: 1 }));
    // A 128-character token is well-formed: it is simply not this job's (LEASE_LOST).
    const wrong = await gql(extend, { queue: q, id: one?.id, token: 't'.repeat(128), leaseMs: 5 });
    expect(codes(wrong.json)).toEqual(['LEASE_LOST']);
    // An ID given as a number is coerced to its decimal string.
    const numeric = await gql(extend, {
      queue: q,
      id: Number(one?.id),
      token: one?.token,
      leaseMs: 5,
    });
    expect(numeric.json?.errors).toBeUndefined();
    const groups =
      'query($queue: String!, $first: Int, $after: String) { queue(name: $queue) { groups(first: $first, after: $after) { edges { cursor } } } }';
    await okay(gql(groups, { queue: q, first: 1 }));
    await okay(
      gql(groups, { queue: q, first: 500, after: cursor.encode(['groups', q, null], 'a') }),
    );
    // Explicit nulls for arguments with defaults mean the default.
    await okay(gql(groups, { queue: q, first: null, after: null }));
    await okay(gql(enqueue, { queue: q, group: 'g', payload: null, maxAttempts: null }));
    await okay(gql(claim, { queue: q, leaseMs: null }));
    // Delays and backoff at their bounds: 0 and 30 days of ms (past Int: SafeInt), jitter 0..1.
    const delayed =
      'mutation($queue: String!, $delayMs: SafeInt, $runAt: DateTime, $backoff: BackoffInput) { enqueue(queue: $queue, group: "d", delayMs: $delayMs, runAt: $runAt, backoff: $backoff) { id state } }';
    const max = Limits.maxDelayMs;
    for (const variables of [
      { delayMs: 0, backoff: { type: 'FIXED', delayMs: 0, jitter: 0 } },
      { delayMs: max, backoff: { type: 'EXPONENTIAL', delayMs: max, maxDelayMs: max, jitter: 1 } },
      { runAt: new Date(Date.now() + 60_000).toISOString(), delayMs: null, backoff: null },
    ]) {
      await okay(gql(delayed, { queue: q, ...variables }));
    }
    const retry =
      'mutation($queue: String!, $id: ID!, $token: String!, $delayMs: SafeInt) { retry(queue: $queue, id: $id, token: $token, delayMs: $delayMs) { id } }';
    const held = (await okay(gql(claim, { queue: q, leaseMs: 60_000 }))).claim;
    await okay(gql(retry, { queue: q, id: held?.id, token: held?.token, delayMs: max }));
  });
});

describe('wrong literal types fail validation', () => {
  it.each(LITERAL_MUTATIONS)('mutation %s', async (_label, selection) => {
    const response = await expectRedisUnchanged(seeded.r, () =>
      post(seeded.api.endpoint, { query: `mutation ${selection}` }),
    );
    expectRefusedWith(response, 'GRAPHQL_VALIDATION_FAILED');
    expect(response.status).toBe(400);
  });

  it.each(LITERAL_QUERIES)('query %s', async (_label, query) => {
    const response = await post(seeded.api.endpoint, { query });
    expectRefusedWith(response, 'GRAPHQL_VALIDATION_FAILED');
    expect(response.status).toBe(400);
  });
});

// Values sized to hurt ---------------------------------------------------------------------------

describe('values sized to hurt are refused like small ones', () => {
  it.each(OVERSIZED)('$name → $status $code', async ({ body: sent, status, code }) => {
    const response = await expectRedisUnchanged(seeded.r, () => post(seeded.api.endpoint, sent));
    expectNoLeak(response.text);
    expect(response.status, response.text.slice(0, 300)).toBe(status);
    expect(codes(response.json)[0], response.text.slice(0, 300)).toBe(code);
    expect(response.json?.data ?? null, 'nothing was answered').toSatisfy(
      (data: unknown) => data === null || Object.values(data as object).every((v) => v === null),
    );
    await expectServerUp(seeded.api);
  });
});
