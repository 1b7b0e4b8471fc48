/**
 * Where a job stands (DESIGN.md §4.1 and §4.2, "Where a job stands"): `Job.position`,
 * `Job.reason` and `Job.estimatedStartAt`, from `Queue.jobPlaces`: each job's place read once
 * per execution, those one turn asks for (a page) in one call. A pending job's reason is its place in its lane, then its group's own reason
 * (`Group.reason`, the same words) or that it runs next.
 */
import type { Context } from '../context.js';
import { type Job, type JobPlace, Limits } from '../lanes/internal.js';
import { reason as groupReason, nextToServe } from './group.js';
import { oncePerExecution } from './perExecution.js';

/** The places asked for in one turn of an execution, read together by one `jobPlaces`. */
interface OpenBatch {
  readonly ids: string[];
  readonly places: Promise<(JobPlace | null)[]>;
}

/**
 * Job `id`'s place, read with every other asked for in the same turn of the execution (a page
 * of pending jobs: one `Queue.jobPlaces`, a few round trips, not a few per job).
 */
function batched(ctx: Context, rootValue: unknown, queue: string, id: string) {
  const holder = oncePerExecution(ctx, rootValue, `places\u0000${queue}`, () => ({
    open: null as OpenBatch | null,
  }));
  let open = holder.open;
  if (open === null || open.ids.length >= Limits.maxPageSize) {
    const ids: string[] = [];
    // Read once this turn has asked for all it will (setImmediate: after the resolvers run).
    const places = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      if (holder.open?.ids === ids) holder.open = null;
      return ctx.engine.queue(queue).jobPlaces(ids);
    });
    open = { ids, places };
    holder.open = open;
  }
  const index = open.ids.push(id) - 1;
  return open.places.then((places) => places[index] ?? null);
}

/**
 * A PENDING job's place, read once per job per execution; a job read in another state needs
 * none (its position and estimate are null, its reason is its own fields').
 */
function placeOf(ctx: Context, j: Job, rootValue: unknown): Promise<JobPlace | null> | null {
  if (j.state !== 'PENDING') return null;
  return oncePerExecution(ctx, rootValue, `place\u0000${j.queue}\u0000${j.id}`, () =>
    batched(ctx, rootValue, j.queue, j.id),
  );
}

/** `Job.position`: pending jobs ahead of it in its lane; null when not pending. */
export async function position(ctx: Context, j: Job, rootValue: unknown): Promise<number | null> {
  const place = await placeOf(ctx, j, rootValue);
  return place?.position ?? null;
}

/** `Job.estimatedStartAt`: when it should start (Redis clock); null when not foreseeable. */
export async function estimatedStartAt(
  ctx: Context,
  j: Job,
  rootValue: unknown,
): Promise<Date | null> {
  const at = (await placeOf(ctx, j, rootValue))?.estimatedStartAt ?? null;
  return at === null ? null : new Date(at);
}

const iso = (ms: number | null): string =>
  ms === null ? 'an unknown time' : new Date(ms).toISOString();

/** Its place in its lane, for people: "first in its lane", "2 ahead of it in its lane (5 pending)". */
function lanePlace(ahead: number, pending: number): string {
  if (ahead === 0) return 'first in its lane';
  return `${ahead} ahead of it in its lane (${pending} pending)`;
}

/** The sentence of a job that is not pending: what it is doing, or when it finished. */
function stateSentence(j: Job): string {
  switch (j.state) {
    case 'DELAYED':
      return `delayed: it joins its group's lane at ${iso(j.runAt)}`;
    case 'ACTIVE':
      return `running: claimed at ${iso(j.claimedAt)}, its lease runs until ${iso(j.leaseUntil)}`;
    case 'COMPLETED':
      return `completed: it finished at ${iso(j.finishedAt)}`;
    case 'DEAD':
      return `dead: it ran out of attempts (${j.attempts} of ${j.maxAttempts}) at ${iso(j.finishedAt)}`;
    case 'PENDING':
      // Read as pending, but gone from its lane by the place's read.
      return 'pending, but it left its lane while it was read';
  }
}

/**
 * `Job.reason`: one plain sentence. Pending: its place in its lane, then its group's reason
 * (why the group gets no turn now, or where it stands on the ring), or that it runs next (first
 * in its lane, its group next to be served). Otherwise its state's sentence: delayed (when it
 * joins its lane), running (its lease), completed or dead (when).
 */
export async function reason(ctx: Context, j: Job, rootValue: unknown): Promise<string> {
  const place = await placeOf(ctx, j, rootValue);
  if (place === null) return stateSentence(j);
  // The place read the job again: it may have moved on since the parent was read.
  const { job, group, position: ahead } = place;
  if (job.state !== 'PENDING') return stateSentence(job);
  if (group === null || ahead === null) return stateSentence(job);
  const where = lanePlace(ahead, group.pending);
  if (ahead === 0 && (await nextToServe(ctx, group, rootValue))) {
    return `${where}, and its group is next to be served: it runs next`;
  }
  return `${where}; its group is ${await groupReason(ctx, group, rootValue)}`;
}
