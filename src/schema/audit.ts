/**
 * `Queue.audit`, `Mutation.repairQueue` and their report types: finding and fixing
 * leaked permits and a damaged ring. Admin only: both read every group of the queue.
 */
import type { Finding, ReconcileReport } from '../lanes/internal.js';
import * as resolve from '../resolvers/audit.js';
import { builder } from './builder.js';
import { QueueRef } from './queue.js';

const FindingKindRef = builder.enumType('FindingKind', {
  description: 'What a finding is about.',
  values: {
    I1: { description: 'Ring membership disagrees with serviceability.' },
    I2: { description: 'A group is on the ring more than once.' },
    I3: { description: 'An active count disagrees with the live leases.' },
    I4: {
      description:
        'A delayed, dead or retained completed job missing from its group’s index or from the queue’s (or a stray entry in one); the subject is the job id.',
    },
    LIMIT: { description: 'A stored limit is not a non-negative integer (it reads as no limit).' },
    REGISTRY: { description: 'A group missing from the registry (state from another writer).' },
    RANK: {
      description:
        'A group ranking of `Queue.topGroups` disagrees with what it ranks: `expected` and `found` are `pending <n>` (the lane’s size) or `active <n>` (the live leases), 0 for no entry.',
    },
    LEASE: { description: 'A lease without an active job, or an active job without a lease.' },
    OVERRIDE: {
      description:
        'A timed override whose two keys disagree (data without a deadline: shown, never reverted; a deadline without data, or at another time than its `until`) or whose data does not decode (invariant I6); the subject is `<kind>:<group>`.',
    },
    RATE: {
      description:
        "A rate limit's token bucket that is malformed (read as empty: repair writes it empty at now) or kept for a group with no rate limit (repair deletes it); the subject is the group.",
    },
    RESERVE: {
      description:
        'The stored sum of the reserves (subject `reserved`) disagrees with the groups’ reserves, or that sum is above the queue’s cap (subject `cap`; not repaired: lower a reserve).',
    },
    SCHEDULE: {
      description:
        'A schedule’s keys disagree: a next tick without a definition (repair drops it), a definition without a next tick or with one later than it allows (repair sets its next tick after now), a last run of no schedule or not `<lastRunAt>:<lastJobId>` (repair drops it); or its definition is not one an upsert writes (repair removes the schedule, its text kept in the history; one whose cron or time zone only this engine does not read is left as it is). The subject is the schedule id.',
    },
    DUE: {
      description:
        'The queue’s “next due at” (subject `delayedAt` or `reopenAt`, in its settings) is later than the earliest delayed job or rate-limit reopening it bounds (repair writes the earliest).',
    },
    TOTALS: {
      description:
        'A queue total in stats disagrees with a recount; or, when `found` starts with "unsettled:", the queue changed during every recount, so that total was neither checked nor written.',
    },
  } as const,
});

const FindingRef = builder.objectRef<Finding>('Finding').implement({
  fields: (t) => ({
    kind: t.field({ type: FindingKindRef, resolve: (f) => f.kind }),
    subject: t.exposeString('subject', {
      description:
        'A group id; a job id for LEASE and I4; a stats field for TOTALS; `<kind>:<group>` (kind limit or pause; `queueLimit:` for the queue’s cap) for OVERRIDE; `reserved` or `cap` for RESERVE; the schedule id for SCHEDULE; `delayedAt` or `reopenAt` for DUE.',
    }),
    expected: t.exposeString('expected'),
    found: t.exposeString('found'),
  }),
});

export const ReconcileReportRef = builder.objectRef<ReconcileReport>('ReconcileReport').implement({
  fields: (t) => ({
    groupsChecked: t.exposeInt('groupsChecked'),
    findings: t.field({ type: [FindingRef], resolve: (r) => r.findings }),
  }),
});

builder.objectField(QueueRef, 'audit', (t) =>
  t.field({
    type: ReconcileReportRef,
    authScopes: { admin: true },
    description:
      'Every violation of invariants I1–I3 now, by group, of I4’s paired job indexes, by job, of I6’s timed-override keys, by override, and of the schedules’ keys, by schedule. Reads every group; writes nothing.',
    resolve: resolve.audit,
  }),
);

builder.mutationField('repairQueue', (t) =>
  t.field({
    type: ReconcileReportRef,
    // Nullable, as every mutation field (src/schema/job.ts says why).
    nullable: true,
    authScopes: { admin: true },
    description:
      'Re-derive active counts from the live leases and ring membership from I1, mend I4’s paired job indexes, I6’s timed-override keys and the schedules’ keys, in bounded batches; returns what changed.',
    args: { queue: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => resolve.repairQueue(ctx, args),
  }),
);
