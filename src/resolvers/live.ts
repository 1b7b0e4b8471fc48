/**
 * Subscriptions: the live feed's generators, unchanged (DESIGN.md §4 `Subscription`). The feed
 * validates the queue name and group id before it watches anything, so a bad argument fails
 * the subscription at once with BAD_USER_INPUT.
 */
import { GraphQLError, type GraphQLResolveInfo } from 'graphql';
import type { Context } from '../context.js';
import { type GroupInfo, type Job, RingmasterError } from '../lanes/index.js';
import type { RingChange } from '../pubsub/index.js';
import { checkLogsArguments } from './logsArguments.js';
import { ringNeedOf } from './ringNeed.js';

/**
 * Start a subscription; an engine error (bad input) is rethrown as a plain GraphQLError with
 * the same message and code. A failed subscribe answers with errors and no data, and Yoga
 * counts an error that does not originate in a GraphQLError as the server's fault: SSE would
 * answer HTTP 500, which fetch-based clients report as a network error, hiding the code.
 */
export function subscribe<T>(start: () => AsyncGenerator<T>): AsyncGenerator<T> {
  try {
    return start();
  } catch (error) {
    if (error instanceof RingmasterError) {
      throw new GraphQLError(error.message, { extensions: error.extensions });
    }
    throw error;
  }
}

/**
 * `ringChanged(queue)`: SNAPSHOT, then CHANGE/RESYNC, carrying as much of the ring as the
 * selection asks for (`ringNeedOf`; BAD_USER_INPUT `first` for a negative one).
 */
export const ringChanged = (
  ctx: Context,
  queue: string,
  info: GraphQLResolveInfo,
): AsyncGenerator<RingChange> =>
  subscribe(() => ctx.feed.ringChanges(queue, undefined, ringNeedOf(info)));

/** `groupChanged(queue, group)`: the group's state now, then on every change. */
export const groupChanged = (
  ctx: Context,
  queue: string,
  group: string,
): AsyncGenerator<GroupInfo> => subscribe(() => ctx.feed.groupChanges(queue, group));

/**
 * `jobChanged(queue, id)`: the job now, then each state it goes through, in order, with the
 * fields of that moment, and every change of its lease, run-at time, last error or progress;
 * ends after COMPLETED, DEAD, or null (gone). DESIGN.md §4.4, "Job events". A selection whose
 * `logs` arguments the engine refuses is refused here, once ({@link checkLogsArguments}).
 */
export const jobChanged = (
  ctx: Context,
  queue: string,
  id: string,
  info: GraphQLResolveInfo,
): AsyncGenerator<Job | null> =>
  subscribe(() => {
    checkLogsArguments(info, queue, id);
    return ctx.feed.jobChanges(queue, id);
  });
