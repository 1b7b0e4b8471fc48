/**
 * `Queue`'s operator actions (admin; DESIGN.md §3 and §4.1, "Operator actions"): requeue dead
 * jobs, remove jobs, purge a group's backlog, promote a delayed job, change a job's priority,
 * and audit and repair
 * (`reconcile.ts`). The contracts are on `Queue`'s methods (queue.ts), which delegate here.
 */
import { Defaults } from '../defaults.js';
import { badInput, errorFromStatus, jobNotFound } from '../errors.js';
import type { Job, JobActionResult, JobState, SteeringOptions } from '../types.js';
import * as validate from '../validate.js';
import type { QueueCore } from './core.js';
import { decodeJob } from './jobs.js';
import { type ReconcileReport, reconcile } from './reconcile.js';

/** {@link Queue.promote}'s answer: the job after the call, and whether it was moved. */
export interface PromotedJob extends Job {
  /** True when it was delayed and is now pending; false when it was not delayed (unchanged). */
  readonly promoted: boolean;
}

// The names each options object may hold (`validate.options` refuses others).
const LIMIT = { limit: true } as const;
const SELECT = { ids: true, group: true, all: true } as const;

/** What {@link Queue.removeJobs} selects. */
export type RemoveSelection =
  | { ids: readonly string[]; state?: JobState | undefined }
  | { group: string; state: JobState }
  | { all: true; state: JobState };

export class OperatorActions {
  constructor(private readonly core: QueueCore) {}

  async requeueDead(
    select: { ids: readonly string[] } | { group: string } | { all: true },
    options: { resetAttempts?: boolean | undefined; limit?: number | undefined } = {},
    steering?: SteeringOptions,
  ): Promise<JobActionResult> {
    const chosen = selection(select, false);
    const opts = validate.options('options', options, { resetAttempts: true, limit: true });
    const history = this.core.historyArgs(steering, 'steering');
    const resetAttempts = opts.resetAttempts ?? true;
    if (typeof resetAttempts !== 'boolean') throw badInput('resetAttempts', 'must be a boolean');
    const limit = validate.actionLimit(opts.limit ?? Defaults.actionLimit);
    if ('ids' in chosen && chosen.ids.length === 0) {
      return { count: 0, remaining: 0, skipped: chosen.malformed };
    }
    const [count, remaining, skipped] = await this.core.commands.requeueDead({
      resetAttempts,
      limit,
      select: chosen,
      history,
    });
    return { count, remaining, skipped: skipped + ('ids' in chosen ? chosen.malformed : 0) };
  }

  async removeJobs(
    select: RemoveSelection,
    options: { limit?: number | undefined } = {},
    steering?: SteeringOptions,
  ): Promise<JobActionResult> {
    const chosen = selection(select, true);
    const raw = (select as { state?: unknown }).state;
    let state: 'pending' | 'delayed' | 'dead' | 'completed' | '' = '';
    if (raw === undefined && !('ids' in chosen)) {
      throw badInput(
        'state',
        'is required with a group or all: PENDING, DELAYED, DEAD or COMPLETED',
      );
    }
    if (raw !== undefined || !('ids' in chosen)) {
      const s = validate.jobState(raw);
      if (s === 'ACTIVE') throw badInput('state', 'ACTIVE jobs cannot be removed');
      if (s === 'PENDING' && 'all' in chosen) {
        throw badInput('state', 'PENDING jobs are removed by group (a lane is a group’s)');
      }
      state = s.toLowerCase() as typeof state;
    }
    const opts = validate.options('options', options, LIMIT);
    const limit = validate.actionLimit(opts.limit ?? Defaults.actionLimit);
    const history = this.core.historyArgs(steering, 'steering');
    if ('ids' in chosen && chosen.ids.length === 0) {
      return { count: 0, remaining: 0, skipped: chosen.malformed };
    }
    const [count, remaining, skipped] = await this.core.commands.removeJobs({
      state,
      limit,
      select: chosen,
      history,
    });
    return { count, remaining, skipped: skipped + ('ids' in chosen ? chosen.malformed : 0) };
  }

  purgeGroup(
    group: string,
    options: { limit?: number | undefined } = {},
    steering?: SteeringOptions,
  ): Promise<JobActionResult> {
    return this.removeJobs({ group, state: 'PENDING' }, options, steering);
  }

  async promote(id: string, options?: SteeringOptions): Promise<PromotedJob> {
    const history = this.core.historyArgs(options);
    const jobId = validate.jobId(this.core.name, id);
    const reply = await this.core.commands.promoteJob({ id: jobId, history });
    if (typeof reply === 'number') {
      throw errorFromStatus(reply, this.core.name, jobId) ?? jobNotFound(this.core.name, jobId);
    }
    const [replyId, fields, promoted] = reply;
    return { ...decodeJob(this.core.name, replyId, fields), promoted: promoted === 1 };
  }

  async changeJobPriority(id: string, priority: number, options?: SteeringOptions): Promise<Job> {
    const history = this.core.historyArgs(options);
    const p = validate.priority(priority);
    const jobId = validate.jobId(this.core.name, id);
    const reply = await this.core.commands.changeJobPriority({ id: jobId, priority: p, history });
    if (typeof reply === 'number') {
      throw errorFromStatus(reply, this.core.name, jobId) ?? jobNotFound(this.core.name, jobId);
    }
    return decodeJob(this.core.name, reply[0], reply[1]);
  }

  audit(): Promise<ReconcileReport> {
    return reconcile(this.core.redis, this.core.keys, this.core.commands, 'audit');
  }

  repair(options?: SteeringOptions): Promise<ReconcileReport> {
    return reconcile(
      this.core.redis,
      this.core.keys,
      this.core.commands,
      'repair',
      this.core.historyArgs(options),
    );
  }
}

/**
 * An operator action's selection, validated: ids (well-formed ones, and how many were not),
 * a group, or all. Exactly one must be given (`withState`: removeJobs, whose selection also
 * carries a state, checked by the caller).
 */
function selection(
  select: unknown,
  withState: boolean,
): { ids: string[]; malformed: number } | { group: string } | { all: true } {
  if (select === null || typeof select !== 'object') {
    throw badInput('ids', `give ids, a group or all${withState ? ' (with a state)' : ''}`);
  }
  const s = validate.options(
    'select',
    select as { ids?: unknown; group?: unknown; all?: unknown; state?: unknown },
    // Without a state (requeueDead) `state` is not a name: the cast only widens the list's type.
    (withState ? { ...SELECT, state: true } : SELECT) as validate.OptionNames<{ state?: unknown }> &
      typeof SELECT,
  );
  const given = [s.ids, s.group, s.all].filter((v) => v !== undefined && v !== null).length;
  if (s.all !== undefined && s.all !== null && s.all !== true) {
    throw badInput('all', 'must be true when given');
  }
  if (given !== 1) {
    throw badInput(
      s.ids !== undefined && s.ids !== null ? 'ids' : 'group',
      given === 0 ? 'give ids, a group or all' : 'give one of ids, a group or all, not several',
    );
  }
  if (s.ids !== undefined && s.ids !== null) return validate.actionIds(s.ids);
  if (s.group !== undefined && s.group !== null) return { group: validate.groupId(s.group) };
  return { all: true };
}
