/**
 * `Job`, `JobState`, `JobError`, `Backoff` and the job mutations of the worker role
 * (DESIGN.md §4).
 */
import {
  type BackoffPolicy,
  Defaults,
  type Job,
  type JobError,
  type JobLog,
  Limits,
} from '../lanes/internal.js';
import * as resolve from '../resolvers/job.js';
import * as place from '../resolvers/jobPlace.js';
import { jobChanged } from '../resolvers/live.js';
import { builder } from './builder.js';
import { PageInfoRef } from './pageInfo.js';

export const JobStateRef = builder.enumType('JobState', {
  values: ['PENDING', 'DELAYED', 'ACTIVE', 'COMPLETED', 'DEAD'] as const,
});

export const BackoffTypeRef = builder.enumType('BackoffType', {
  description:
    'FIXED waits `delayMs` after every failed attempt; EXPONENTIAL waits `delayMs × 2^(attempt − 1)`, capped at `maxDelayMs`.',
  values: ['FIXED', 'EXPONENTIAL'] as const,
});

export const BackoffRef = builder.objectRef<BackoffPolicy>('Backoff').implement({
  description:
    'How long a failed attempt with attempts left waits before the job returns to its lane (it waits DELAYED).',
  fields: (t) => ({
    type: t.field({ type: BackoffTypeRef, resolve: (b) => b.type }),
    delayMs: t.field({
      type: 'SafeInt',
      description: 'The wait after a failed attempt (ms, up to 30 days).',
      resolve: (b) => b.delayMs,
    }),
    maxDelayMs: t.field({
      type: 'SafeInt',
      nullable: true,
      description: 'The longest wait (ms); null = no cap.',
      resolve: (b) => b.maxDelayMs,
    }),
    jitter: t.exposeFloat('jitter', {
      description: '0..1: the wait is drawn uniformly from [wait × (1 − jitter), wait].',
    }),
  }),
});

export const JobErrorRef = builder.objectRef<JobError>('JobError').implement({
  description: 'One failed attempt of a job.',
  fields: (t) => ({
    attempt: t.exposeInt('attempt', { description: 'The attempt that failed (1 for the first).' }),
    at: t.field({
      type: 'DateTime',
      description: 'When it failed (Redis clock).',
      resolve: (e) => new Date(e.at),
    }),
    message: t.exposeString('message', {
      description: "The error's message (at most 1,024 characters); 'lease expired' when reaped.",
    }),
    stack: t.exposeString('stack', {
      nullable: true,
      description: 'Its stack (at most 8,192 characters), or null when none was given.',
    }),
  }),
});

export const JobLogRef = builder.objectRef<JobLog>('JobLog').implement({
  description: `One line of a job's log (\`addJobLog\`); the newest ${Defaults.logsKept.toLocaleString('en-US')} are kept.`,
  fields: (t) => ({
    at: t.field({
      type: 'DateTime',
      description: 'When it was added (Redis clock).',
      resolve: (l) => new Date(l.at),
    }),
    line: t.exposeString('line'),
  }),
});

const JobLogEdgeRef = builder.objectRef<{ cursor: string; node: JobLog }>('JobLogEdge').implement({
  fields: (t) => ({
    cursor: t.exposeString('cursor', {
      description: "Opaque; pass as `after` for the lines after it (this job's log only).",
    }),
    node: t.field({ type: JobLogRef, resolve: (e) => e.node }),
  }),
});

const JobLogConnectionRef = builder
  .objectRef<resolve.JobLogConnection>('JobLogConnection')
  .implement({
    description:
      "A page of a job's log, oldest first. A cursor stays good while older lines are dropped: the next page goes on after its line.",
    fields: (t) => ({
      edges: t.field({ type: [JobLogEdgeRef], resolve: (c) => c.edges }),
      pageInfo: t.field({ type: PageInfoRef, resolve: (c) => c }),
      totalCount: t.exposeInt('totalCount', {
        description: `Lines the log keeps now (at most ${Defaults.logsKept.toLocaleString('en-US')}).`,
      }),
    }),
  });

export const BackoffInputRef = builder.inputType('BackoffInput', {
  description:
    'A retry policy: how long a failed attempt with attempts left waits (DELAYED) before the job returns to its lane.',
  fields: (t) => ({
    type: t.field({ type: BackoffTypeRef, required: true }),
    delayMs: t.field({
      type: 'SafeInt',
      required: true,
      description: 'ms, 0..2,592,000,000 (30 days).',
    }),
    maxDelayMs: t.field({
      type: 'SafeInt',
      description: 'The longest wait (ms), delayMs..2,592,000,000; null = no cap (30 days).',
    }),
    jitter: t.float({
      description: '0..1 (default 0): the wait is cut by up to this fraction, at random.',
    }),
  }),
});

/** An enqueue's `cost`, as each enqueue takes it. */
const COST = `Tokens its claim takes from its group's rate-limit bucket, 1..${Limits.maxRateClaims.toLocaleString('en-US')}, default 1; BAD_USER_INPUT \`cost\` above the group's burst when it has a rate limit.`;

const DebounceInputRef = builder.inputType('DebounceInput', {
  description:
    'Debounce: the job waits DELAYED `windowMs`; while it is PENDING or DELAYED, an enqueue with the same key (per queue) replaces its payload (newest wins) and moves its run time to now + windowMs, answering the same job (its maxAttempts, backoff and priority kept); once it has been claimed, the next enqueue makes a new job. Not with `key` (an idempotency key answers the first job unchanged), `delayMs` or `runAt`.',
  fields: (t) => ({
    key: t.string({
      required: true,
      description:
        '1–256 UTF-8 bytes, no control characters; BAD_USER_INPUT `debounce.key` when its waiting job is of another group.',
    }),
    windowMs: t.field({
      type: 'SafeInt',
      required: true,
      description:
        'ms after the last enqueue with the key that the job runs, 1..2,592,000,000 (30 days).',
    }),
  }),
});

/** An enqueue's `priority`, as each enqueue takes it. */
const PRIORITY = `Its place in its group's lane: ${Limits.minPriority} (runs first) to ${Limits.maxPriority} (runs last), default ${Defaults.priority}; FIFO within a priority.`;

/** What `resultPreview` and `progressPreview` answer (DESIGN.md §4.2). */
const PREVIEW =
  'its JSON text whole when it has at most `chars` characters (code points), else its first `chars − 1` and "…"';

/** The `chars` argument of a preview field. */
const PREVIEW_CHARS = `1..${Limits.maxPreviewChars.toLocaleString('en-US')} (default 120); else BAD_USER_INPUT.`;

/** A time field of a job: ms (Redis clock) in the engine, `DateTime` here. */
const time = (description: string, pick: (j: Job) => number | null) =>
  ({
    type: 'DateTime',
    nullable: true,
    description,
    resolve: (j: Job) => resolve.date(pick(j)),
  }) as const;

export const JobRef = builder.objectRef<Job>('Job').implement({
  description: 'One unit of work, belonging to exactly one group.',
  fields: (t) => ({
    id: t.exposeID('id'),
    queue: t.exposeString('queue'),
    group: t.exposeString('group'),
    payload: t.field({ type: 'JSON', nullable: true, resolve: (j) => j.payload }),
    payloadPreview: t.string({
      nullable: true,
      description: `\`payload\` as one line for a list: ${PREVIEW}; null for a null payload.`,
      args: { chars: t.arg.int({ defaultValue: 120, description: PREVIEW_CHARS }) },
      resolve: (j, args) => resolve.jsonPreview(j.payload, args.chars),
    }),
    result: t.field({
      type: 'JSON',
      nullable: true,
      description:
        "What its processor returned (complete's result), kept while the completed job is; null for none and on a job that is not COMPLETED.",
      resolve: (j) => j.result,
    }),
    resultPreview: t.string({
      nullable: true,
      description: `\`result\` as one line for a list: ${PREVIEW}; null where \`result\` is.`,
      args: { chars: t.arg.int({ defaultValue: 120, description: PREVIEW_CHARS }) },
      resolve: (j, args) => resolve.jsonPreview(j.result, args.chars),
    }),
    progress: t.field({
      type: 'JSON',
      nullable: true,
      description:
        'What its processor last reported (`updateJobProgress`): a number 0–100 or an object; kept across retries and with the job; null before any.',
      resolve: (j) => j.progress,
    }),
    progressPreview: t.string({
      nullable: true,
      description: `\`progress\` as one line for a list: ${PREVIEW}; null before any report.`,
      args: { chars: t.arg.int({ defaultValue: 120, description: PREVIEW_CHARS }) },
      resolve: (j, args) => resolve.jsonPreview(j.progress, args.chars),
    }),
    logs: t.field({
      type: JobLogConnectionRef,
      description: `Its log, oldest first, a page at a time (the newest ${Defaults.logsKept.toLocaleString('en-US')} lines kept; deleted with the job).`,
      args: {
        first: t.arg.int({
          description: `Lines per page, 1..500 (default ${Defaults.pageSize}); not with \`last\`.`,
        }),
        after: t.arg.string(),
        last: t.arg.int({
          description:
            'The newest `last` lines instead (1..500, still oldest first; not with `first` or `after`): the end of the log in one read.',
        }),
      },
      resolve: (j, args, ctx) => resolve.logs(ctx, j, args),
    }),
    state: t.field({ type: JobStateRef, resolve: (j) => j.state }),
    attempts: t.exposeInt('attempts', { description: 'Claims so far.' }),
    token: t.exposeString('token', {
      nullable: true,
      description:
        'The lease token while ACTIVE, in the answers of claim, extendLease and updateJobProgress (the worker that holds the lease); null in every read (Queue.job, Queue.jobs, Group.jobs, jobChanged).',
    }),
    leaseUntil: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the lease expires (Redis clock) while ACTIVE.',
      resolve: resolve.leaseUntil,
    }),
    maxAttempts: t.exposeInt('maxAttempts', {
      description: 'Claims allowed; a failed attempt at this count makes the job DEAD.',
    }),
    enqueuedAt: t.field(time('When it was enqueued (Redis clock).', (j) => j.enqueuedAt)),
    runAt: t.field(time('When it runs (Redis clock) while DELAYED; else null.', (j) => j.runAt)),
    claimedAt: t.field(time('When it was last claimed (Redis clock).', (j) => j.claimedAt)),
    finishedAt: t.field(
      time('When it completed or died (Redis clock); null before.', (j) => j.finishedAt),
    ),
    workerId: t.string({
      nullable: true,
      description:
        'The id of the worker holding it while ACTIVE (its claim’s `workerId`, or the `Worker`’s id); null in every other state.',
      resolve: (j) => (j.state === 'ACTIVE' ? (j.workerId ?? null) : null),
    }),
    lastError: t.exposeString('lastError', {
      nullable: true,
      description: "Why the last attempt failed (the worker's error, or 'lease expired').",
    }),
    errors: t.field({
      type: [JobErrorRef],
      description: `Its failed attempts, newest first (the last ${Defaults.errorsKept}).`,
      resolve: (j, _args, ctx, info) => resolve.errors(ctx, j, info.rootValue),
    }),
    backoff: t.field({
      type: BackoffRef,
      nullable: true,
      description: 'Its retry policy; null = a failed attempt returns to its lane at once.',
      resolve: (j, _args, ctx, info) => resolve.backoff(ctx, j, info.rootValue),
    }),
    priority: t.int({
      description: `Its place in its group's lane: ${Limits.minPriority} (runs first) to ${Limits.maxPriority} (runs last), ${Defaults.priority} by default; FIFO within a priority. Kept through retries, delays and requeues; \`changeJobPriority\` changes it while PENDING or DELAYED.`,
      resolve: (j, _args, ctx, info) => resolve.priority(ctx, j, info.rootValue),
    }),
    cost: t.int({
      description:
        "Tokens its claim takes from its group's rate-limit bucket, 1 by default (`enqueue`'s `cost`); the head job's cost decides when a rate-limited group is served again.",
      resolve: (j, _args, ctx, info) => resolve.cost(ctx, j, info.rootValue),
    }),
    debounceKey: t.string({
      nullable: true,
      description:
        'The debounce key it was enqueued with (`DebounceInput`); null for none, and in the answer of `claim`.',
      resolve: (j) => j.debounceKey ?? null,
    }),
    position: t.int({
      nullable: true,
      description:
        'While PENDING, how many pending jobs are ahead of it in its lane (0: it is first); null in any other state. O(log lane).',
      resolve: (j, _args, ctx, info) => place.position(ctx, j, info.rootValue),
    }),
    reason: t.string({
      description:
        "One plain sentence on where it stands. PENDING: its place in its lane, then why its group gets no turn now (its group's `reason`), or that it runs next; DELAYED: when it joins its lane; ACTIVE: its claim and lease; COMPLETED and DEAD: when it finished.",
      resolve: (j, _args, ctx, info) => place.reason(ctx, j, info.rootValue),
    }),
    estimatedStartAt: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        "While PENDING, when it should start (Redis clock), from its position, its group's limit and recent completion times, and the group's place on the rota; null when there is not enough history (fewer than 3 retained completions of its group), while its group or the queue is paused or its limit is 0, and in any other state. An estimate, not a promise: it assumes the recent pace goes on.",
      resolve: (j, _args, ctx, info) => place.estimatedStartAt(ctx, j, info.rootValue),
    }),
  }),
});

const EnqueueJobInputRef = builder.inputType('EnqueueJobInput', {
  description:
    "One job of `enqueueJobs`: `enqueue`'s arguments but the queue, with the same rules and defaults.",
  fields: (t) => ({
    group: t.string({ required: true }),
    payload: t.field({ type: 'JSON' }),
    maxAttempts: t.int({ defaultValue: Defaults.maxAttempts }),
    key: t.string({
      description:
        "Idempotency key, as `enqueue`'s; a key two jobs of one call carry with the same request makes one job (the second answers it), with another request refuses the call.",
    }),
    delayMs: t.field({
      type: 'SafeInt',
      description: "As `enqueue`'s: 0..2,592,000,000 ms from now. Not with `runAt`.",
    }),
    runAt: t.field({
      type: 'DateTime',
      description: "As `enqueue`'s: within 30 days of now (Redis clock). Not with `delayMs`.",
    }),
    backoff: t.field({ type: BackoffInputRef }),
    priority: t.int({ description: PRIORITY }),
    cost: t.int({ description: COST }),
    debounce: t.field({
      type: DebounceInputRef,
      description:
        "As `enqueue`'s; a key a job of the call carries whose job is waiting, before the call or made earlier in it, is replaced by the later job, each answering the one job.",
    }),
  }),
});

// Every mutation field is nullable: null, with an error at its path, when it
// failed. A non-null root mutation field that fails nulls all of `data`, hiding the results of
// the fields before it that did run — an enqueued job's id, lost to a client that then retries.
builder.mutationFields((t) => ({
  enqueue: t.field({
    type: JobRef,
    nullable: true,
    authScopes: { worker: true },
    description:
      "Add a job to the tail of its group's lane, or DELAYED until its run-at time (`delayMs` or `runAt`). With `key`, a retry is safe: the same key within the queue answers the job it made (for 24 h after it) and adds nothing.",
    args: {
      queue: t.arg.string({ required: true }),
      group: t.arg.string({ required: true }),
      payload: t.arg({ type: 'JSON' }),
      maxAttempts: t.arg.int({ defaultValue: Defaults.maxAttempts }),
      key: t.arg.string({
        description:
          'Idempotency key, 1–256 UTF-8 bytes: an enqueue with a key already used in this queue within 24 h answers that job (once its record is trimmed, state COMPLETED standing for finished: completed or dead) and writes nothing; BAD_USER_INPUT when that job had another group, payload, maxAttempts, delay or backoff. Without a key, an enqueue retried after a lost reply adds a second job.',
      }),
      delayMs: t.arg({
        type: 'SafeInt',
        description:
          'Run no sooner than this many ms from now (Redis clock), 0..2,592,000,000 (30 days): the job waits DELAYED. Not with `runAt`.',
      }),
      runAt: t.arg({
        type: 'DateTime',
        description:
          'Run no sooner than this time (Redis clock), within 30 days of now (BAD_USER_INPUT `runAt` otherwise); a time past runs at once. Not with `delayMs`.',
      }),
      backoff: t.arg({
        type: BackoffInputRef,
        description: 'How long a failed attempt waits before the job runs again; none = at once.',
      }),
      priority: t.arg.int({ description: PRIORITY }),
      cost: t.arg.int({ description: COST }),
      debounce: t.arg({ type: DebounceInputRef }),
    },
    resolve: (_root, args, ctx) => resolve.enqueue(ctx, args),
  }),
  enqueueJobs: t.field({
    type: [JobRef],
    nullable: true,
    authScopes: { worker: true },
    description: `Enqueue up to ${Limits.maxEnqueueBatch.toLocaleString('en-US')} jobs in one atomic call, each as \`enqueue\` would, answered in input order. One bad job refuses the whole call (BAD_USER_INPUT naming it, \`jobs[3].group\`) and nothing is written. Send the jobs as a variable: written inline they count against the document's token limit.`,
    args: {
      queue: t.arg.string({ required: true }),
      jobs: t.arg({ type: [EnqueueJobInputRef], required: true }),
    },
    resolve: (_root, args, ctx) => resolve.enqueueJobs(ctx, args),
  }),
  claim: t.field({
    type: JobRef,
    nullable: true,
    authScopes: { worker: true },
    description:
      'Claim the next job of the rota; null when no group is serviceable. With `workerId`, the job keeps it while ACTIVE (`Job.workerId`) and the caller is registered as a worker of the queue (`Queue.workers`, `client` true) until 15 s after its last claim.',
    args: {
      queue: t.arg.string({ required: true }),
      leaseMs: t.arg.int({ defaultValue: Defaults.leaseMs }),
      workerId: t.arg.string({
        description: `The claiming worker's id: 1 to ${Limits.workerIdBytes} UTF-8 bytes, no control characters.`,
      }),
    },
    resolve: (_root, args, ctx) => resolve.claim(ctx, args),
  }),
  complete: t.field({
    type: JobRef,
    nullable: true,
    authScopes: { worker: true },
    description: 'Complete an active job you hold the lease of; its permit is released.',
    args: {
      queue: t.arg.string({ required: true }),
      id: t.arg.id({ required: true }),
      token: t.arg.string({ required: true }),
      result: t.arg({
        type: 'JSON',
        description:
          "Its processor's result, kept with the completed job while the retention keeps it (Job.result): a JSON value of at most 524,288 bytes of JSON text; null for none.",
      }),
    },
    resolve: (_root, args, ctx) => resolve.complete(ctx, { ...args, id: String(args.id) }),
  }),
  retry: t.field({
    type: JobRef,
    nullable: true,
    authScopes: { worker: true },
    description:
      'Give an active job back after a failed attempt: recorded in its `errors` (and `lastError`), then DEAD at maxAttempts, else after its wait (`delayMs`, or its backoff policy) DELAYED, or at the front of its lane when there is no wait.',
    args: {
      queue: t.arg.string({ required: true }),
      id: t.arg.id({ required: true }),
      token: t.arg.string({ required: true }),
      error: t.arg.string({
        description:
          "Why it failed: its `lastError` and its errors entry's message (cut to 1,024 characters).",
      }),
      stack: t.arg.string({
        description: "The failure's stack, kept in its errors entry (cut to 8,192 characters).",
      }),
      delayMs: t.arg({
        type: 'SafeInt',
        description:
          'Wait this long (ms, 0..2,592,000,000) before it runs again, overriding its backoff policy; 0 = at once.',
      }),
    },
    resolve: (_root, args, ctx) => resolve.retry(ctx, { ...args, id: String(args.id) }),
  }),
  extendLease: t.field({
    type: JobRef,
    nullable: true,
    authScopes: { worker: true },
    description: "Push an active job's lease deadline to now + leaseMs.",
    args: {
      queue: t.arg.string({ required: true }),
      id: t.arg.id({ required: true }),
      token: t.arg.string({ required: true }),
      leaseMs: t.arg.int({ required: true }),
    },
    resolve: (_root, args, ctx) => resolve.extendLease(ctx, { ...args, id: String(args.id) }),
  }),
  updateJobProgress: t.field({
    type: JobRef,
    nullable: true,
    authScopes: { worker: true },
    description: `Report an active job's progress, as the holder of its lease: a number 0–100 or a JSON object (at most ${Limits.progressBytes.toLocaleString('en-US')} bytes of JSON text), kept until the next report, across retries and with the job; a watched job's \`jobChanged\` carries it.`,
    args: {
      queue: t.arg.string({ required: true }),
      id: t.arg.id({ required: true }),
      token: t.arg.string({ required: true }),
      progress: t.arg({ type: 'JSON', required: true }),
    },
    resolve: (_root, args, ctx) => resolve.updateJobProgress(ctx, { ...args, id: String(args.id) }),
  }),
  addJobLog: t.field({
    type: JobLogRef,
    nullable: true,
    authScopes: { worker: true },
    description: `Add a line (at most ${Limits.logLineBytes.toLocaleString('en-US')} UTF-8 bytes) to an active job's log, as the holder of its lease; the newest ${Defaults.logsKept.toLocaleString('en-US')} are kept, and the log goes with the job.`,
    args: {
      queue: t.arg.string({ required: true }),
      id: t.arg.id({ required: true }),
      token: t.arg.string({ required: true }),
      line: t.arg.string({ required: true }),
    },
    resolve: (_root, args, ctx) => resolve.addJobLog(ctx, { ...args, id: String(args.id) }),
  }),
  promoteJob: t.field({
    type: JobRef,
    nullable: true,
    authScopes: { admin: true },
    description:
      'Run a DELAYED job now: it goes to its lane at its place, by priority then FIFO (its group re-joins the ring if that makes it serviceable). A job in any other state is answered unchanged; JOB_NOT_FOUND when there is no such job (or it is COMPLETED or DEAD past its retention’s age: gone, as `Queue.job` reads it).',
    args: { queue: t.arg.string({ required: true }), id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) =>
      resolve.promoteJob(ctx, { queue: args.queue, id: String(args.id) }),
  }),
  changeJobPriority: t.field({
    type: JobRef,
    nullable: true,
    authScopes: { admin: true },
    description: `Give a PENDING or DELAYED job a new priority, ${Limits.minPriority} (runs first) to ${Limits.maxPriority} (runs last): a PENDING job moves to its new place in its lane at once (FIFO within the priority), a DELAYED job keeps it for when it runs. A job in any other state is answered unchanged; JOB_NOT_FOUND when there is no such job (or it is COMPLETED or DEAD past its retention’s age); BAD_USER_INPUT \`priority\` out of range.`,
    args: {
      queue: t.arg.string({ required: true }),
      id: t.arg.id({ required: true }),
      priority: t.arg.int({ required: true }),
    },
    resolve: (_root, args, ctx) =>
      resolve.changeJobPriority(ctx, {
        queue: args.queue,
        id: String(args.id),
        priority: args.priority,
      }),
  }),
}));

builder.subscriptionFields((t) => ({
  jobChanged: t.field({
    type: JobRef,
    nullable: true,
    authScopes: { read: true },
    description:
      'The job as it is now, then every state it goes through, in order, each with the fields of that moment (however short: a job claimed and completed at once still shows ACTIVE, then COMPLETED), and whenever its lease, run-at time or last error changes. Completes after the job is COMPLETED or DEAD (COMPLETED also when the queue keeps no completed job and its hash is deleted at once), or after null: the job is gone (trimmed, removed, or past its retention age) or never was. Every change from the first event on is sent: wait for it before acting on the job. An id that is not a decimal string is JOB_NOT_FOUND.',
    args: { queue: t.arg.string({ required: true }), id: t.arg.id({ required: true }) },
    subscribe: (_root, args, ctx, info) => jobChanged(ctx, args.queue, String(args.id), info),
    resolve: (job) => job,
  }),
}));
