/**
 * `Mutation.upgradeQueueLayout` and its `LayoutUpgrade`: the in-place upgrade of a queue of the
 * job layout before (DESIGN.md §2, "Upgrading in place"), a bounded number of steps a call.
 * Admin only: it visits every job id of the queue.
 */
import { type LayoutUpgrade, Limits } from '../lanes/internal.js';
import * as resolve from '../resolvers/layout.js';
import { ReconcileReportRef } from './audit.js';
import { builder } from './builder.js';

const LayoutUpgradeRef = builder.objectRef<LayoutUpgrade>('LayoutUpgrade').implement({
  description: `What one call of upgradeQueueLayout did (DESIGN.md §2, "Upgrading in place"): at most ${resolve.LAYOUT_STEPS_PER_CALL} atomic steps; call again while \`done\` is false (it resumes where the last step stopped).`,
  fields: (t) => ({
    done: t.exposeBoolean('done', {
      description:
        'Whether the queue is of this version’s job layout now, so enqueue and claim work there; also true for a queue that never minted a job id (nothing to convert: left unmarked, its first enqueue marks it).',
    }),
    layout: t.exposeString('layout', {
      nullable: true,
      description:
        'The queue’s job layout mark after the call: "2" once done, "upgrading" while ids are left to visit, null for a queue that never minted a job id.',
    }),
    moved: t.exposeInt('moved', {
      description: 'Payloads this call moved from job hashes into the queue’s payloads hash.',
    }),
    visitedTo: t.field({
      type: 'SafeInt',
      description:
        'The last job id this call visited (every id up to it is converted); 0 when it visited none (the queue was already of this layout, or never minted an id).',
      resolve: (u) => u.visitedTo,
    }),
    lastId: t.field({
      type: 'SafeInt',
      description:
        'The queue’s last minted job id, as the call’s last step read it: with visitedTo, how far the upgrade is; 0 when none was read.',
      resolve: (u) => u.lastId,
    }),
    steps: t.exposeInt('steps', { description: 'Atomic steps (script calls) this call made.' }),
    repair: t.field({
      type: ReconcileReportRef,
      nullable: true,
      description:
        'What the repair run once the queue is of this layout changed (repairQueue: the indexes this version keeps that the version before did not, such as the rankings); null while not done, or for a queue that never minted a job id.',
      resolve: (u) => u.repair,
    }),
  }),
});

builder.mutationField('upgradeQueueLayout', (t) =>
  t.field({
    type: LayoutUpgradeRef,
    // Nullable, as every mutation field (src/schema/job.ts says why).
    nullable: true,
    authScopes: { admin: true },
    description: `Convert a queue of the job layout before (payloads in the job hashes) to this version’s, in place, without draining it (DESIGN.md §2, "Upgrading in place"): at most ${resolve.LAYOUT_STEPS_PER_CALL} atomic steps a call, each visiting \`batch\` job ids and moving the payloads it finds; the last marks the queue, after which enqueue and claim work there, and a repair (as repairQueue) builds the indexes the version before did not keep. Call again while \`done\` is false. Stop the previous version’s claims there first. A queue already of this layout answers done at once; one marked with another layout is refused (LAYOUT_MISMATCH), one whose job id counter is unreadable too (DATA_OUT_OF_RANGE), nothing written by either.`,
    args: {
      queue: t.arg.string({ required: true }),
      batch: t.arg.int({
        description: `Job ids one step visits, 1..${Limits.maxLayoutBatch.toLocaleString('en-US')} (default ${resolve.DEFAULT_BATCH.toLocaleString('en-US')}); out of range is BAD_USER_INPUT \`batch\`.`,
      }),
    },
    resolve: (_root, args, ctx) => resolve.upgradeQueueLayout(ctx, args),
  }),
);
