/**
 * DESIGN.md §5: every engine call given each kind of bad input is refused with the right code
 * (BAD_USER_INPUT, or JOB_NOT_FOUND for a job id that is not a decimal string) and leaves Redis
 * byte for byte as it was: every key's DUMP and PTTL is compared before and after. The
 * scripts' own refusals (JOB_NOT_FOUND, LEASE_LOST) are held to the same standard.
 *
 * The values are test/fixtures/badInput.ts, which test/api/badInput.test.ts gives to every
 * GraphQL field too; the values JSON cannot carry (undefined, NaN, a bigint, a function…) are
 * tried here only.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ErrorCode,
  type Job,
  Limits,
  type Queue,
  Ringmaster,
  RingmasterError,
} from '../../src/lanes/index.js';
import {
  ACTION_IDS,
  ACTION_LIMITS,
  ACTORS,
  BACKOFFS,
  type BadValue,
  COSTS,
  CRONS,
  CURSORS,
  DEBOUNCES,
  DELAYS,
  EVERY_MS,
  FAILURE_TEXTS,
  FIRSTS,
  FOR_MS,
  GROUP_IDS,
  GROUP_RANKINGS,
  JOB_CURSORS,
  JOB_IDS,
  JOB_STATES,
  LEASES,
  LIMITS,
  LOG_LINES,
  MAX_ATTEMPTS,
  MAX_PENDINGS,
  NULL,
  OVERRIDE_KINDS,
  PAYLOADS,
  PRIORITIES,
  PROGRESSES,
  QUEUE,
  QUEUE_NAMES,
  RATE_BURSTS,
  REAP_BATCHES,
  RETENTION_AGES,
  RETENTION_COUNTS,
  RETENTION_POLICIES,
  RUN_ATS,
  THROUGHPUT_MINUTES,
  TIMEZONES,
  TOKENS,
  TOP_FIRSTS,
  UNREMOVABLE_STATES,
  WEIGHTS,
  WORKER_IDS,
} from '../fixtures/badInput.js';
import { snapshot, useEngine } from '../support/lanes.js';

const engine = useEngine();

/** A queue with something in every key, so an accidental write anywhere shows. */
const ctx = {} as { q: Queue; rm: Ringmaster; active: Job; pending: Job; dead: Job };

beforeAll(async () => {
  const rm = new Ringmaster(engine.redis());
  const q = rm.queue(QUEUE);
  await q.setLimit('a', 2);
  const dead = await q.enqueue('d', { doomed: true }, { maxAttempts: 1 });
  const deadClaim = (await q.claim()) as Job;
  await q.retry(deadClaim.id, deadClaim.token as string, 'gone');
  await q.enqueue('a', { n: 1 });
  await q.enqueue('a', { n: 2 });
  const active = (await q.claim({ leaseMs: 3_600_000 })) as Job;
  const pending = await q.enqueue('b', { n: 3 });
  await q.pause('b');
  await q.enqueue('c');
  Object.assign(ctx, { q, rm, active, pending, dead });
});

// Calls ---------------------------------------------------------------------------------------

type Call = () => Promise<unknown>;
type Case = [name: string, call: Call, code: string];
const BAD = ErrorCode.BAD_USER_INPUT;

const any = (v: unknown) => v as never;
/** A value in a test's name: long text cut short, and what JSON cannot write named. */
const show = (v: unknown): string => {
  const cut = (text: string) => (text.length > 24 ? `${text.slice(0, 12)}…(${text.length})` : text);
  if (typeof v === 'string') return JSON.stringify(cut(v));
  if (typeof v === 'number') return String(v);
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'function') return 'function';
  if (typeof v === 'symbol') return 'symbol';
  if (v === undefined) return 'undefined';
  try {
    return cut(JSON.stringify(v));
  } catch {
    return 'circular';
  }
};

/**
 * Each value of `table` as `call(value)`, refused with its engine code, named `<name> <value>`
 * (or `name(value)` when `name` is a function).
 */
const each = (
  table: readonly BadValue[],
  name: string | ((shown: string) => string),
  call: (value: unknown) => Promise<unknown>,
): Case[] =>
  table.map(({ value, engine: code }): Case => {
    const title = typeof name === 'string' ? `${name} ${show(value)}` : name(show(value));
    return [title, () => call(value), code];
  });

const cases: Case[] = [
  ...each(QUEUE_NAMES, 'queue name', async (v) => ctx.rm.queue(any(v))),
  ...GROUP_IDS.flatMap((bad) => [
    ...each([bad], 'setLimit group', (v) => ctx.q.setLimit(any(v), 1)),
    ...each([bad], 'clearLimit group', (v) => ctx.q.clearLimit(any(v))),
    ...each([bad], 'pause group', (v) => ctx.q.pause(any(v))),
    ...each([bad], 'resume group', (v) => ctx.q.resume(any(v))),
    ...each([bad], 'enqueue group', (v) => ctx.q.enqueue(any(v), { ok: true })),
    ...each(
      [bad],
      (shown) => `group(${shown})`,
      (v) => ctx.q.group(any(v)),
    ),
  ]),
  ...each(ACTORS, 'setLimit actor', (v) => ctx.q.setLimit('a', 1, { actor: any(v) })),
  ...each(ACTORS, 'pauseQueue actor', (v) => ctx.q.pauseQueue({ actor: any(v) })),
  ...each(ACTORS, 'cancelOverride actor', (v) =>
    ctx.q.cancelOverride('a', 'limit', { actor: any(v) }),
  ),
  ...each(
    ACTORS,
    'Ringmaster actor',
    async (v) => new Ringmaster(engine.redis(), { actor: any(v) }),
  ),
  ...each([...LIMITS, NULL], 'setLimit limit', (v) => ctx.q.setLimit('a', any(v))),
  ...each([...WEIGHTS, NULL], 'setWeight weight', (v) => ctx.q.setWeight('a', any(v))),
  ...each(GROUP_IDS, 'setWeight group', (v) => ctx.q.setWeight(any(v), 2)),
  ...each(GROUP_IDS, 'upsertSchedule id', (v) =>
    ctx.q.upsertSchedule({ id: any(v), group: 'a', everyMs: 5_000 }),
  ),
  ...each(GROUP_IDS, 'upsertSchedule group', (v) =>
    ctx.q.upsertSchedule({ id: 's', group: any(v), everyMs: 5_000 }),
  ),
  ...each(EVERY_MS, 'upsertSchedule everyMs', (v) =>
    ctx.q.upsertSchedule({ id: 's', group: 'a', everyMs: any(v) }),
  ),
  ...each(CRONS, 'upsertSchedule cron', (v) =>
    ctx.q.upsertSchedule({ id: 's', group: 'a', cron: any(v) }),
  ),
  ...each(TIMEZONES, 'upsertSchedule timezone', (v) =>
    ctx.q.upsertSchedule({ id: 's', group: 'a', cron: '* * * * *', timezone: any(v) }),
  ),
  ...each(PAYLOADS, 'upsertSchedule payload', (v) =>
    ctx.q.upsertSchedule({ id: 's', group: 'a', everyMs: 5_000, payload: v }),
  ),
  ...each(ACTORS, 'upsertSchedule actor', (v) =>
    ctx.q.upsertSchedule({ id: 's', group: 'a', everyMs: 5_000 }, { actor: any(v) }),
  ),
  ...each(GROUP_IDS, 'removeSchedule id', (v) => ctx.q.removeSchedule(any(v))),
  ...each(FIRSTS, 'schedules first', (v) => ctx.q.schedules({ first: any(v) })),
  ...each(CURSORS, 'schedules after', (v) => ctx.q.schedules({ after: any(v) })),
  ...each([...LIMITS, NULL], 'setQueueLimit limit', (v) => ctx.q.setQueueLimit(any(v))),
  ...each(FOR_MS, 'setQueueLimit forMs', (v) => ctx.q.setQueueLimit(5, { forMs: any(v) })),
  ...each(ACTORS, 'clearQueueLimit actor', (v) => ctx.q.clearQueueLimit({ actor: any(v) })),
  ...each([...LIMITS, NULL], 'setReserve reserve', (v) => ctx.q.setReserve('a', any(v))),
  ...each(GROUP_IDS, 'setReserve group', (v) => ctx.q.setReserve(any(v), 1)),
  ...each(MAX_PENDINGS, 'setMaxPending maxPending', (v) => ctx.q.setMaxPending('a', any(v))),
  ...each(GROUP_IDS, 'setMaxPending group', (v) => ctx.q.setMaxPending(any(v), 1)),
  ...each(ACTORS, 'setMaxPending actor', (v) => ctx.q.setMaxPending('a', 1, { actor: any(v) })),
  ...each(MAX_PENDINGS, 'setDefaultMaxPending maxPending', (v) =>
    ctx.q.setDefaultMaxPending(any(v)),
  ),
  ...each(FOR_MS, 'setLimit forMs', (v) => ctx.q.setLimit('a', 1, { forMs: any(v) })),
  ...each(FOR_MS, 'pause forMs', (v) => ctx.q.pause('a', { forMs: any(v) })),
  ...each(OVERRIDE_KINDS, 'cancelOverride kind', (v) => ctx.q.cancelOverride('a', any(v))),
  ...each(GROUP_IDS, 'cancelOverride group', (v) => ctx.q.cancelOverride(any(v), 'limit')),
  ...LEASES.flatMap((bad) => [
    ...each([bad], 'claim leaseMs', (v) => ctx.q.claim({ leaseMs: any(v) })),
    ...each([bad], 'extendLease leaseMs', (v) =>
      ctx.q.extendLease(ctx.active.id, ctx.active.token as string, any(v)),
    ),
  ]),
  ...each([NULL], 'extendLease leaseMs', (v) =>
    ctx.q.extendLease(ctx.active.id, ctx.active.token as string, any(v)),
  ),
  ...each(MAX_ATTEMPTS, 'enqueue maxAttempts', (v) =>
    ctx.q.enqueue('a', null, { maxAttempts: any(v) }),
  ),
  ...each(PRIORITIES, 'enqueue priority', (v) => ctx.q.enqueue('a', null, { priority: any(v) })),
  ...each(COSTS, 'enqueue cost', (v) => ctx.q.enqueue('a', null, { cost: any(v) })),
  ...each(RATE_BURSTS, 'setRateLimit burst', (v) =>
    ctx.q.setRateLimit('a', { max: 1, windowMs: 1_000, burst: any(v) }),
  ),
  ...each(PRIORITIES, 'changeJobPriority priority', (v) =>
    ctx.q.changeJobPriority(ctx.active.id, any(v)),
  ),
  ...each(PAYLOADS, 'enqueue payload', (v) => ctx.q.enqueue('a', v)),
  ...each(PAYLOADS, 'complete result', (v) =>
    ctx.q.complete(ctx.active.id, ctx.active.token as string, { result: v }),
  ),
  ...each(PAYLOADS, 'completeAndClaim result', (v) =>
    ctx.q.completeAndClaim([{ id: ctx.active.id, token: ctx.active.token as string, result: v }]),
  ),
  ...each(PROGRESSES, 'updateJobProgress progress', (v) =>
    ctx.q.updateJobProgress(ctx.active.id, ctx.active.token as string, any(v)),
  ),
  ...each(LOG_LINES, 'addJobLog line', (v) =>
    ctx.q.addJobLog(ctx.active.id, ctx.active.token as string, any(v)),
  ),
  ...each(DELAYS, 'enqueue delayMs', (v) => ctx.q.enqueue('a', null, { delayMs: any(v) })),
  ...each(RUN_ATS, 'enqueue runAt', (v) => ctx.q.enqueue('a', null, { runAt: any(v) })),
  ...each(BACKOFFS, 'enqueue backoff', (v) => ctx.q.enqueue('a', null, { backoff: any(v) })),
  ...each(DEBOUNCES, 'enqueue debounce', (v) => ctx.q.enqueue('a', null, { debounce: any(v) })),
  ...each(DEBOUNCES, 'enqueueMany debounce', (v) =>
    ctx.q.enqueueMany([{ group: 'a', options: { debounce: any(v) } }]),
  ),
  ...each(DELAYS, 'retry delayMs', (v) =>
    ctx.q.retry(ctx.active.id, ctx.active.token as string, { delayMs: any(v) }),
  ),
  ...each(FAILURE_TEXTS, 'retry error', (v) =>
    ctx.q.retry(ctx.active.id, ctx.active.token as string, { error: any(v) }),
  ),
  ...each(FAILURE_TEXTS, 'retry stack', (v) =>
    ctx.q.retry(ctx.active.id, ctx.active.token as string, { stack: any(v) }),
  ),
  ...each(FIRSTS, 'groups first', (v) => ctx.q.groups({ first: any(v) })),
  ...each(THROUGHPUT_MINUTES, 'throughput minutes', (v) => ctx.q.throughput(any(v))),
  ...each(TOP_FIRSTS, 'topGroups first', (v) => ctx.q.topGroups('PENDING', any(v))),
  ...each(GROUP_RANKINGS, 'topGroups by', (v) => ctx.q.topGroups(any(v))),
  ...each(CURSORS, 'groups after', (v) => ctx.q.groups({ after: any(v) })),
  ...each(WORKER_IDS, 'claim workerId', (v) => ctx.q.claim({ workerId: any(v) })),
  ...each(WORKER_IDS, 'completeAndClaim workerId', (v) =>
    ctx.q.completeAndClaim([], { workerId: any(v) }),
  ),
  ...each(WORKER_IDS, 'workerHeartbeat id', (v) =>
    ctx.q.workerHeartbeat({ id: any(v), heartbeatMs: 1_000 }),
  ),
  ...each(WORKER_IDS, 'removeWorker id', (v) => ctx.q.removeWorker(any(v))),
  ...TOKENS.flatMap((bad) => [
    // null is claim's default token (a new one), not a bad one.
    ...each(bad === NULL ? [] : [bad], 'claim token', (v) => ctx.q.claim({ token: any(v) })),
    ...each([bad], 'complete token', (v) => ctx.q.complete(ctx.active.id, any(v))),
    ...each([bad], 'retry token', (v) => ctx.q.retry(ctx.active.id, any(v))),
    ...each([bad], 'extendLease token', (v) => ctx.q.extendLease(ctx.active.id, any(v), 1000)),
    ...each([bad], 'updateJobProgress token', (v) =>
      ctx.q.updateJobProgress(ctx.active.id, any(v), 5),
    ),
    ...each([bad], 'addJobLog token', (v) => ctx.q.addJobLog(ctx.active.id, any(v), 'x')),
  ]),
  ...each(REAP_BATCHES, 'reap batch', (v) => ctx.q.reap({ batch: any(v) })),
  // Operator actions and job reads.
  ...ACTION_LIMITS.flatMap((bad) => [
    ...each([bad], 'requeueDead limit', (v) => ctx.q.requeueDead({ all: true }, { limit: any(v) })),
    ...each([bad], 'removeJobs limit', (v) =>
      ctx.q.removeJobs({ group: 'a', state: 'PENDING' }, { limit: any(v) }),
    ),
    ...each([bad], 'purgeGroup limit', (v) => ctx.q.purgeGroup('a', { limit: any(v) })),
  ]),
  ...ACTION_IDS.flatMap((bad) => [
    ...each([bad], 'requeueDead ids', (v) => ctx.q.requeueDead({ ids: any(v) })),
    ...each([bad], 'removeJobs ids', (v) => ctx.q.removeJobs({ ids: any(v) })),
  ]),
  ...GROUP_IDS.flatMap((bad) => [
    ...each([bad], 'requeueDead group', (v) => ctx.q.requeueDead({ group: any(v) })),
    ...each([bad], 'removeJobs group', (v) => ctx.q.removeJobs({ group: any(v), state: 'DEAD' })),
    ...each([bad], 'purgeGroup group', (v) => ctx.q.purgeGroup(any(v))),
    // For a read the group is optional: null and undefined mean none.
    ...each(bad === NULL || bad.value === undefined ? [] : [bad], 'jobs group', (v) =>
      ctx.q.jobs({ state: 'DEAD', group: any(v) }),
    ),
  ]),
  ...[...JOB_STATES, ...UNREMOVABLE_STATES].flatMap((bad) => [
    ...each([bad], 'removeJobs state', (v) => ctx.q.removeJobs({ group: 'a', state: any(v) })),
    ...each([bad], 'removeJobs ids state', (v) =>
      ctx.q.removeJobs({ ids: [ctx.pending.id], state: any(v) }),
    ),
  ]),
  ...each(JOB_STATES, 'jobs state', (v) => ctx.q.jobs({ state: any(v), group: 'a' })),
  ...each(FIRSTS, 'jobs first', (v) => ctx.q.jobs({ state: 'DEAD', first: any(v) })),
  ...each(JOB_CURSORS, 'jobs after', (v) => ctx.q.jobs({ state: 'DEAD', after: any(v) })),
  ...each(CURSORS, 'jobs after (a group cursor’s table)', (v) =>
    ctx.q.jobs({ state: 'DEAD', after: any(v) }),
  ),
  ['requeueDead ids and a group', () => ctx.q.requeueDead(any({ ids: ['1'], group: 'a' })), BAD],
  ['requeueDead ids and all', () => ctx.q.requeueDead(any({ ids: ['1'], all: true })), BAD],
  ['requeueDead nothing chosen', () => ctx.q.requeueDead(any({})), BAD],
  ['requeueDead all: false', () => ctx.q.requeueDead(any({ all: false })), BAD],
  ['requeueDead no selection', () => ctx.q.requeueDead(any(undefined)), BAD],
  [
    'requeueDead resetAttempts not a boolean',
    () => ctx.q.requeueDead({ all: true }, { resetAttempts: any('no') }),
    BAD,
  ],
  [
    'removeJobs ids and a group',
    () => ctx.q.removeJobs(any({ ids: ['1'], group: 'a', state: 'DEAD' })),
    BAD,
  ],
  ['removeJobs a group without a state', () => ctx.q.removeJobs(any({ group: 'a' })), BAD],
  ['removeJobs all without a state', () => ctx.q.removeJobs(any({ all: true })), BAD],
  ['removeJobs all PENDING', () => ctx.q.removeJobs({ all: true, state: 'PENDING' }), BAD],
  ['jobs PENDING without a group', () => ctx.q.jobs({ state: 'PENDING' }), BAD],
  ['jobs without options', () => ctx.q.jobs(any(undefined)), BAD],
  ...each(RETENTION_POLICIES, 'setRetention completed', (v) =>
    ctx.q.setRetention({ completed: any(v) }),
  ),
  ...each(RETENTION_COUNTS, 'setRetention completed.count', (v) =>
    ctx.q.setRetention({ completed: { count: any(v) } }),
  ),
  ...each(RETENTION_AGES, 'setRetention dead.ageMs', (v) =>
    ctx.q.setRetention({ dead: { ageMs: any(v) } }),
  ),
  ...JOB_IDS.flatMap((bad) => [
    ...each([bad], 'complete id', (v) => ctx.q.complete(any(v), ctx.active.token as string)),
    ...each([bad], 'retry id', (v) => ctx.q.retry(any(v), ctx.active.token as string)),
    ...each([bad], 'updateJobProgress id', (v) =>
      ctx.q.updateJobProgress(any(v), ctx.active.token as string, 5),
    ),
    ...each([bad], 'addJobLog id', (v) => ctx.q.addJobLog(any(v), ctx.active.token as string, 'x')),
    ...each([bad], 'extendLease id', (v) =>
      ctx.q.extendLease(any(v), ctx.active.token as string, 1000),
    ),
    ...each([bad], 'changeJobPriority id', (v) => ctx.q.changeJobPriority(any(v), 1)),
  ]),
];

/** The code `call` is refused with; fails the test if it succeeds or throws anything else. */
async function refusal(call: Call): Promise<string> {
  try {
    await call();
  } catch (error) {
    if (error instanceof RingmasterError) return error.code;
    throw error;
  }
  throw new Error('the call was accepted');
}

describe('bad input (DESIGN.md §5)', () => {
  it.each(cases)(
    '%s',
    async (_name, call, code) => {
      const before = await snapshot(engine.redis());
      expect(await refusal(call)).toBe(code);
      expect(await snapshot(engine.redis())).toEqual(before);
    },
    2_000,
  );

  it('names the argument at fault', async () => {
    const argumentOf = async (call: Call) => {
      try {
        await call();
      } catch (error) {
        return (error as RingmasterError).argument;
      }
      return undefined;
    };
    expect(await argumentOf(() => ctx.q.setLimit('', 1))).toBe('group');
    expect(await argumentOf(() => ctx.q.setLimit('a', -1))).toBe('limit');
    expect(await argumentOf(() => ctx.q.claim({ leaseMs: 0 }))).toBe('leaseMs');
    expect(await argumentOf(() => ctx.q.enqueue('a', null, { maxAttempts: 0 }))).toBe(
      'maxAttempts',
    );
    expect(await argumentOf(() => ctx.q.groups({ first: 0 }))).toBe('first');
    expect(await argumentOf(() => ctx.q.groups({ after: 'nope!' }))).toBe('after');
    expect(await argumentOf(() => ctx.q.complete('1', ''))).toBe('token');
    // Malformed input is named before a not-found id (DESIGN.md §5 lists both).
    expect(await argumentOf(() => ctx.q.complete('abc', ''))).toBe('token');
    expect(await argumentOf(() => ctx.q.retry('abc', ''))).toBe('token');
    expect(await argumentOf(() => ctx.q.extendLease('abc', 't', 0))).toBe('leaseMs');
    expect(await argumentOf(() => ctx.q.group(''))).toBe('id');
    expect(await argumentOf(() => ctx.q.requeueDead({ all: true }, { limit: 0 }))).toBe('limit');
    expect(await argumentOf(() => ctx.q.removeJobs({ ids: [] }))).toBe('ids');
    expect(await argumentOf(() => ctx.q.requeueDead(any({ ids: ['1'], group: 'a' })))).toBe('ids');
    expect(await argumentOf(() => ctx.q.removeJobs(any({ group: 'a', state: 'ACTIVE' })))).toBe(
      'state',
    );
    expect(await argumentOf(() => ctx.q.removeJobs(any({ group: 'a', state: 'NOPE' })))).toBe(
      'state',
    );
    expect(await argumentOf(() => ctx.q.jobs(any({ state: 'NOPE' })))).toBe('state');
    expect(await argumentOf(() => ctx.q.jobs({ state: 'PENDING' }))).toBe('group');
    expect(await argumentOf(() => ctx.q.jobs({ state: 'DEAD', first: 501 }))).toBe('first');
    expect(await argumentOf(() => ctx.q.jobs({ state: 'DEAD', after: 'x!' }))).toBe('after');
    expect(await argumentOf(() => ctx.q.enqueue('a', null, { delayMs: -1 }))).toBe('delayMs');
    expect(await argumentOf(() => ctx.q.enqueue('a', null, { runAt: -1 }))).toBe('runAt');
    // beyond 30 days from the Redis clock's now: refused by the script, before any write
    expect(await argumentOf(() => ctx.q.enqueue('a', null, { runAt: 8.64e15 }))).toBe('runAt');
    expect(
      await argumentOf(() => ctx.q.enqueue('a', null, { delayMs: 1, runAt: Date.now() + 1 })),
    ).toBe('runAt');
    expect(
      await argumentOf(() => ctx.q.enqueue('a', null, { backoff: { type: 'FIXED', delayMs: -1 } })),
    ).toBe('backoff');
    expect(
      await argumentOf(() =>
        ctx.q.retry(ctx.active.id, ctx.active.token as string, { delayMs: 2 ** 32 }),
      ),
    ).toBe('delayMs');
    expect(
      await argumentOf(() =>
        ctx.q.retry(ctx.active.id, ctx.active.token as string, { error: 1 } as never),
      ),
    ).toBe('error');
    // the token before the options, as before the id
    expect(await argumentOf(() => ctx.q.retry('abc', '', { delayMs: -1 }))).toBe('token');
  });

  it('says a payload too deep to serialize is nested too deeply, not that it is not JSON', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const before = await snapshot(engine.redis());
    await expect(ctx.q.enqueue('a', deep)).rejects.toThrow(/payload: is nested too deeply/);
    expect(await snapshot(engine.redis())).toEqual(before);
  });
});

describe('refusals by the scripts change nothing either', () => {
  const scriptCases: Array<[string, Call, string]> = [
    [
      'complete with a wrong token',
      () => ctx.q.complete(ctx.active.id, 'wrong'),
      ErrorCode.LEASE_LOST,
    ],
    ['retry with a wrong token', () => ctx.q.retry(ctx.active.id, 'wrong'), ErrorCode.LEASE_LOST],
    [
      'extendLease with a wrong token',
      () => ctx.q.extendLease(ctx.active.id, 'wrong', 1000),
      ErrorCode.LEASE_LOST,
    ],
    [
      'complete of a pending job',
      () => ctx.q.complete(ctx.pending.id, ctx.active.token as string),
      ErrorCode.LEASE_LOST,
    ],
    ['retry of a dead job', () => ctx.q.retry(ctx.dead.id, 'any'), ErrorCode.LEASE_LOST],
  ];
  it.each(scriptCases)('%s', async (_name, call, code) => {
    const before = await snapshot(engine.redis());
    expect(await refusal(call)).toBe(code);
    expect(await snapshot(engine.redis())).toEqual(before);
  });
});

describe('the bounds themselves are accepted', () => {
  it('delayMs 0 and 2,592,000,000, a runAt 29 days ahead, backoff at its bounds', async () => {
    const q = ctx.rm.queue('bounds-delay');
    expect((await q.enqueue('g', null, { delayMs: 0 })).state).toBe('PENDING');
    expect((await q.enqueue('g', null, { delayMs: Limits.maxDelayMs })).state).toBe('DELAYED');
    const runAt = Date.now() + Limits.maxDelayMs - 86_400_000;
    expect((await q.enqueue('g', null, { runAt })).runAt).toBe(runAt);
    const backoff = {
      type: 'EXPONENTIAL' as const,
      delayMs: Limits.maxDelayMs,
      maxDelayMs: Limits.maxDelayMs,
      jitter: 1,
    };
    expect((await q.enqueue('g', null, { backoff })).backoff).toEqual(backoff);
    const zero = { type: 'FIXED' as const, delayMs: 0, maxDelayMs: null, jitter: 0 };
    expect((await q.enqueue('g', null, { backoff: zero })).backoff).toEqual(zero);
  });

  it('a group id of exactly 256 UTF-8 bytes, limits 0 and 1,000,000, maxAttempts 1 and 100', async () => {
    const q = ctx.rm.queue('bounds');
    expect((await q.setLimit('a'.repeat(256), 0)).limit).toBe(0);
    expect((await q.setLimit('é'.repeat(128), Limits.maxLimit)).limit).toBe(Limits.maxLimit);
    expect((await q.enqueue('g', null, { maxAttempts: 1 })).maxAttempts).toBe(1);
    expect((await q.enqueue('g', null, { maxAttempts: 100 })).maxAttempts).toBe(100);
  });

  it('a payload of exactly 524,288 bytes of JSON text, leaseMs 1 and 86,400,000, first 1 and 500, a 128-character token', async () => {
    const q = ctx.rm.queue('bounds2');
    const text = 'x'.repeat(Limits.payloadBytes - 2);
    const job = await q.enqueue('g', text);
    expect(job.payload).toBe(text);
    await q.enqueue('g');
    const a = await q.claim({ leaseMs: Limits.maxLeaseMs, token: 't'.repeat(128) });
    expect(a?.token).toBe('t'.repeat(128));
    // Characters, not UTF-16 units: 128 astral characters are 256 units.
    await q.enqueue('g');
    const astral = '😀'.repeat(128);
    const c = await q.claim({ token: astral });
    expect(c?.token).toBe(astral);
    expect((await q.complete(c?.id ?? '', astral)).state).toBe('COMPLETED');
    const b = await q.claim({ leaseMs: 1 });
    expect(b).not.toBeNull();
    expect((await q.groups({ first: 1 })).groups).toHaveLength(1);
    expect((await q.groups({ first: 500 })).groups).toHaveLength(1);
    // b's 1 ms lease has passed by the Redis clock once a TIME read shows a later millisecond.
    const [sec, usec] = await ctx.rm.redis.time();
    const claimedAt = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
    while (true) {
      const [s2, u2] = await ctx.rm.redis.time();
      if (Number(s2) * 1000 + Math.floor(Number(u2) / 1000) > claimedAt + 1) break;
    }
    // Only b's lease has passed (a's is a day, c completed): the largest batch reaps exactly it.
    expect(await q.reap({ batch: Limits.maxReapBatch })).toBe(1);
  });
});
