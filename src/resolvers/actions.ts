/**
 * Operator actions (admin): thin calls into the engine (DESIGN.md §4.3). Each argument is
 * handed on as given (null as absent) and judged by the engine before anything reaches Redis:
 * which of `ids`, `group` and `all` select the jobs, the limit, the state, the policies.
 */

import type { Context } from '../context.js';
import type { JobActionResult, JobState, Queue, RetentionChange } from '../lanes/internal.js';
import { steering } from './steering.js';

type Maybe<T> = T | null | undefined;

/** The selection `{ ids?, group?, all? }` of the arguments given (null: not given). */
function selectionOf(a: {
  ids?: Maybe<readonly (string | number)[]>;
  group?: Maybe<string>;
  all?: Maybe<boolean>;
}) {
  return {
    ...(a.ids == null ? {} : { ids: a.ids.map(String) }),
    ...(a.group == null ? {} : { group: a.group }),
    ...(a.all == null ? {} : { all: a.all }),
  };
}

/**
 * `requeueDeadJobs`: dead jobs back to the front of their lanes (by ids, a group, or all).
 * @throws RingmasterError BAD_USER_INPUT (`ids`, `group`, `all`, `limit`)
 */
export const requeueDeadJobs = (
  ctx: Context,
  a: {
    queue: string;
    ids?: Maybe<readonly (string | number)[]>;
    group?: Maybe<string>;
    all?: Maybe<boolean>;
    resetAttempts?: Maybe<boolean>;
    limit?: Maybe<number>;
  },
): Promise<JobActionResult> =>
  ctx.engine
    .queue(a.queue)
    .requeueDead(
      selectionOf(a) as Parameters<Queue['requeueDead']>[0],
      { resetAttempts: a.resetAttempts ?? undefined, limit: a.limit ?? undefined },
      steering(ctx),
    );

/**
 * `removeJobs`: jobs not running deleted (by ids, optionally of one state, a group's jobs in
 * `state`, or all the queue's in `state`).
 * @throws RingmasterError BAD_USER_INPUT (`ids`, `group`, `all`, `state`, `limit`)
 */
export const removeJobs = (
  ctx: Context,
  a: {
    queue: string;
    ids?: Maybe<readonly (string | number)[]>;
    group?: Maybe<string>;
    all?: Maybe<boolean>;
    state?: Maybe<JobState>;
    limit?: Maybe<number>;
  },
): Promise<JobActionResult> =>
  ctx.engine.queue(a.queue).removeJobs(
    {
      ...selectionOf(a),
      ...(a.state == null ? {} : { state: a.state }),
    } as Parameters<Queue['removeJobs']>[0],
    { limit: a.limit ?? undefined },
    steering(ctx),
  );

/** `purgeGroup`: a group's PENDING backlog deleted, up to `limit` per call. */
export const purgeGroup = (
  ctx: Context,
  a: { queue: string; group: string; limit?: Maybe<number> },
): Promise<JobActionResult> =>
  ctx.engine.queue(a.queue).purgeGroup(a.group, { limit: a.limit ?? undefined }, steering(ctx));

/** `pauseQueue`: no claims from the queue until resumed; the queue after. */
export async function pauseQueue(ctx: Context, a: { queue: string }): Promise<Queue> {
  const q = ctx.engine.queue(a.queue);
  await q.pauseQueue(steering(ctx));
  return q;
}

/** `resumeQueue`: claims run again (parked workers woken); the queue after. */
export async function resumeQueue(ctx: Context, a: { queue: string }): Promise<Queue> {
  const q = ctx.engine.queue(a.queue);
  await q.resumeQueue(steering(ctx));
  return q;
}

/** A `RetentionInput`: a field left out keeps what the queue has; `ageMs: null` is no bound. */
interface RetentionArg {
  count?: Maybe<number>;
  ageMs?: Maybe<number>;
}

/**
 * The change an input asks for, a field given as null kept as null (the engine refuses a null
 * count; a null ageMs means no age bound), a field left out left out.
 */
function changeOf(input: Maybe<RetentionArg>): RetentionChange | undefined {
  if (input == null) return undefined;
  return {
    ...('count' in input ? { count: input.count } : {}),
    ...('ageMs' in input ? { ageMs: input.ageMs } : {}),
  } as RetentionChange;
}

/**
 * `setRetention`: the queue's completed and/or dead retention; the queue after.
 * @throws RingmasterError BAD_USER_INPUT (`completed`, `dead`)
 */
export async function setRetention(
  ctx: Context,
  a: { queue: string; completed?: Maybe<RetentionArg>; dead?: Maybe<RetentionArg> },
): Promise<Queue> {
  const q = ctx.engine.queue(a.queue);
  const completed = changeOf(a.completed);
  const dead = changeOf(a.dead);
  await q.setRetention(
    {
      ...(completed === undefined ? {} : { completed }),
      ...(dead === undefined ? {} : { dead }),
    },
    steering(ctx),
  );
  return q;
}
