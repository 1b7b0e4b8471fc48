/**
 * One value per execution and key: what several fields of one operation would each read is read
 * once (a page of groups asking `reason` reads the ring once; a page of jobs asking `errors`
 * reads each job once). An execution is a request's context for a query or mutation; for a
 * subscription, whose context lives as long as it does, the event being executed (its root
 * value), so every event reads the state as it is then.
 */
import type { Context } from '../context.js';

// By context, then by execution: a subscription event's root value can be shared by the
// subscribers of one event (DESIGN.md §4.4), and a later subscriber's context must not see
// what an earlier one read.
const values = new WeakMap<Context, WeakMap<object, Map<string, unknown>>>();

/**
 * `compute()` the first time `key` is asked within the execution of `ctx` / `rootValue` (the
 * field's `info.rootValue`), the same value after.
 */
export function oncePerExecution<T>(
  ctx: Context,
  rootValue: unknown,
  key: string,
  compute: () => T,
): T {
  const execution = typeof rootValue === 'object' && rootValue !== null ? rootValue : ctx;
  let byExecution = values.get(ctx);
  if (!byExecution) {
    byExecution = new WeakMap();
    values.set(ctx, byExecution);
  }
  let byKey = byExecution.get(execution);
  if (!byKey) {
    byKey = new Map();
    byExecution.set(execution, byKey);
  }
  if (!byKey.has(key)) byKey.set(key, compute());
  return byKey.get(key) as T;
}
