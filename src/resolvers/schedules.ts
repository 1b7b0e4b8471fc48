/**
 * Schedules (DESIGN.md §3, "Schedules"; §4.2 `Queue.schedules`, §4.3 `upsertSchedule`,
 * `removeSchedule`): thin calls into the engine.
 */
import type { Context } from '../context.js';
import type { Queue, Schedule, SchedulePage } from '../lanes/index.js';
import { type BackoffArg, backoffOf } from './job.js';
import { steering } from './steering.js';

/** `upsertSchedule`'s arguments as GraphQL gives them (absent and null alike). */
export interface UpsertScheduleArgs {
  queue: string;
  id: string;
  group: string;
  everyMs?: number | null | undefined;
  cron?: string | null | undefined;
  timezone?: string | null | undefined;
  payload?: unknown;
  maxAttempts?: number | null | undefined;
  backoff?: BackoffArg | null | undefined;
  priority?: number | null | undefined;
}

/**
 * `Mutation.upsertSchedule` (admin): the schedule as it stands; the history records the
 * caller's actor (§4.6).
 * @throws RingmasterError BAD_USER_INPUT (`id`, `group`, `everyMs`, `cron`, `timezone`, …)
 */
export const upsertSchedule = (ctx: Context, a: UpsertScheduleArgs): Promise<Schedule> =>
  ctx.engine.queue(a.queue).upsertSchedule(
    {
      id: a.id,
      group: a.group,
      everyMs: a.everyMs,
      cron: a.cron,
      timezone: a.timezone,
      payload: a.payload,
      maxAttempts: a.maxAttempts,
      backoff: backoffOf(a.backoff),
      priority: a.priority,
    },
    steering(ctx),
  );

/** `Mutation.removeSchedule` (admin): whether a schedule was removed. */
export const removeSchedule = (ctx: Context, a: { queue: string; id: string }): Promise<boolean> =>
  ctx.engine.queue(a.queue).removeSchedule(a.id, steering(ctx));

/** `Queue.schedules`: a page by id as a Relay connection. */
export async function schedules(
  q: Queue,
  first: number | null | undefined,
  after: string | null | undefined,
): Promise<SchedulePage & { edges: { cursor: string; node: Schedule }[] }> {
  const page = await q.schedules({ first: first ?? undefined, after });
  const edges = page.schedules.map((node, i) => ({ cursor: page.cursors[i] as string, node }));
  return { ...page, edges };
}
