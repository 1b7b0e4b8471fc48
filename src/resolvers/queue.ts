/** Queue reads: thin calls into the engine (DESIGN.md §4 `Query`, `Queue`). */

import type { Context } from '../context.js';
import type {
  GroupInfo,
  GroupPage,
  Job,
  JobPage,
  JobState,
  Queue,
  QueueCounts,
  QueueRetention,
  QueueState,
  QueueStats,
} from '../lanes/internal.js';
import { withoutToken } from '../lanes/internal.js';

/** `Query.queue(name)`: a handle; the engine validates the name (BAD_USER_INPUT). */
export function queue(ctx: Context, name: string): Queue {
  return ctx.engine.queue(name);
}

/** `Query.queues`: every registered queue, sorted by name. */
export async function queues(ctx: Context): Promise<Queue[]> {
  return (await ctx.engine.queues()).map((name) => ctx.engine.queue(name));
}

export const ring = (q: Queue): Promise<string[]> => q.ring();
export const paused = (q: Queue): Promise<string[]> => q.paused();
export const counts = (q: Queue): Promise<QueueCounts> => q.counts();
export const activeGroups = (q: Queue): Promise<GroupInfo[]> => q.activeGroups();
export const group = (q: Queue, id: string): Promise<GroupInfo> => q.group(id);

/** `Queue.groups(first, after)`: a Relay-style connection page. */
export async function groups(
  q: Queue,
  first: number | null | undefined,
  after: string | null | undefined,
  prefix?: string,
): Promise<GroupPage & { edges: { cursor: string; node: GroupInfo }[] }> {
  return toConnection(await q.groups({ first: first ?? undefined, after, prefix }));
}

/** A page of groups as a Relay connection: each node with its cursor. */
export function toConnection(
  page: GroupPage,
): GroupPage & { edges: { cursor: string; node: GroupInfo }[] } {
  const edges = page.groups.map((node, i) => ({ cursor: page.cursors[i] as string, node }));
  return { ...page, edges };
}

/** `Queue.stats`: the event counters, O(1). */
export const stats = (q: Queue): Promise<QueueStats> => q.stats();

/** `Queue.state`: RUNNING or PAUSED, O(1). */
export const state = (q: Queue): Promise<QueueState> => q.state();

/** `Queue.retention`: the policies in force, defaults filled in, O(1). */
export const retention = (q: Queue): Promise<QueueRetention> => q.retention();

/** A page of jobs as a Relay connection: each job with its cursor. */
export type JobConnection = JobPage & { edges: { cursor: string; node: Job }[] };

/**
 * `Queue.jobs(state, group, first, after)` and `Group.jobs`: a page of jobs in `state`, O(log n +
 * page) (the engine's `Queue.jobs`, one script); no lease tokens ({@link withoutToken}).
 * @throws RingmasterError BAD_USER_INPUT (argument `state`, `group`, `first` or `after`)
 */
export async function jobs(
  q: Queue,
  a: {
    state: JobState;
    group?: string | null | undefined;
    first?: number | null | undefined;
    after?: string | null | undefined;
  },
): Promise<JobConnection> {
  const page = await q.jobs({
    state: a.state,
    group: a.group ?? undefined,
    first: a.first ?? undefined,
    after: a.after,
  });
  return {
    ...page,
    edges: page.jobs.map((node, i) => ({
      cursor: page.cursors[i] as string,
      node: withoutToken(node),
    })),
  };
}
