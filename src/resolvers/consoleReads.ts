/** Reads the admin console needs (issue 6): throughput counters, prefix search, the caller's role. */
import { groupsWithPrefix } from '../lanes/groupLookup.js';
import type { GroupInfo, GroupPage, Queue, QueueStats } from '../lanes/index.js';
import type { Context, Role } from '../schema/context.js';

/** `Queue.stats`: the event counters, O(1). */
export const stats = (q: Queue): Promise<QueueStats> => q.stats();

/** `Queue.groupsWithPrefix(prefix, first, after)`: a Relay-style page of matching groups. */
export async function groupsByPrefix(
  q: Queue,
  prefix: string,
  first: number | null | undefined,
  after: string | null | undefined,
): Promise<GroupPage & { edges: { cursor: string; node: GroupInfo }[] }> {
  const page = await groupsWithPrefix(q, prefix, { first: first ?? undefined, after });
  const edges = page.groups.map((node, i) => ({ cursor: page.cursors[i] as string, node }));
  return { ...page, edges };
}

/** `Query.viewer`: who the caller is, so a client can hide what its role may not do. */
export const viewer = (ctx: Context): { role: Role } => ({ role: ctx.role });
