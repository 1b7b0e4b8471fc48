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
import { jobId, logsCursor, logsPage } from '../lanes/internal.js';

/**
 * Each `logs(…)` of the selection (aliases, fragments), checked by the engine's own rules for
 * `Job.logs` (`logsPage`, and `after` against this job's listing); nothing is read.
 * @throws RingmasterError BAD_USER_INPUT (`first`, `after`, `last`) as `Job.logs` would
 */
export function checkLogsArguments(info: GraphQLResolveInfo, queue: string, id: string): void {
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
    const { after } = logsPage({ first: a.first, after: a.after, last: a.last });
    // An id that names no job is the feed's to refuse (JOB_NOT_FOUND), not this check's.
    let job: string | null = null;
    try {
      job = jobId(queue, id);
    } catch {}
    if (after !== null && job !== null) logsCursor.decode(after, ['logs', queue, job]);
  }
}
