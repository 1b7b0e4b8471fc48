/** Reads the admin console needs (issue 6): throughput counters, prefix search, the caller's role. */
import type { GroupInfo, GroupPage, Queue, QueueStats } from '../lanes/index.js';
import type { Context, Role } from '../schema/context.js';
import { groups } from './queue.js';

/** `Queue.stats`: the event counters, O(1). */
export const stats = (q: Queue): Promise<QueueStats> => q.stats();

/** `Queue.groupsWithPrefix(prefix, first, after)`: a Relay-style page of matching groups. */
export function groupsByPrefix(
  q: Queue,
  prefix: string,
  first: number | null | undefined,
  after: string | null | undefined,
): Promise<GroupPage & { edges: { cursor: string; node: GroupInfo }[] }> {
  return groups(q, first, after, prefix);
}

/** `Query.viewer`: who the caller is, so a client can hide what its role may not do. */
export const viewer = (ctx: Context): { role: Role } => ({ role: ctx.role });
