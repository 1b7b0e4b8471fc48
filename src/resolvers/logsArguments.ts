/**
 * The `logs` arguments of a `jobChanged` selection, judged once at subscribe (DESIGN.md §4.4): a
 * bad `first`, `last` or `after` of `Job.logs` would null every event's job (its field is
 * non-null), which a subscriber reads as the job gone, at every change for as long as it
 * watches. So the subscription is refused at once with the field's own BAD_USER_INPUT.
 */
import {
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  getArgumentValues,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import type { Queue } from '../lanes/index.js';

/**
 * Each `logs(…)` of the selection (aliases, fragments), read as `Job.logs` would be: the
 * engine's checks run on each (its read of the log, O(page), answers nothing here).
 * @throws RingmasterError BAD_USER_INPUT (`first`, `after`, `last`) as `Job.logs` would
 */
export async function checkLogsArguments(
  info: GraphQLResolveInfo,
  queue: Queue,
  id: string,
): Promise<void> {
  const job = info.schema.getType('Job') as GraphQLObjectType;
  const logs = job.getFields().logs;
  if (logs === undefined) return;
  const asked: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode | undefined) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === 'logs') {
          asked.push(getArgumentValues(logs, selection, info.variableValues));
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet);
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        walk(info.fragments[selection.name.value]?.selectionSet);
      }
    }
  };
  for (const node of info.fieldNodes) walk(node.selectionSet);
  for (const a of asked) {
    await queue.jobLogs(id, {
      first: (a.first as number | null | undefined) ?? undefined,
      after: a.after as string | null | undefined,
      last: (a.last as number | null | undefined) ?? undefined,
    });
  }
}
