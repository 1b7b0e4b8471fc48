/**
 * Jobs in the console (issue 16): one job followed live, pages of a job list that follow the
 * queue's snapshot, and the loop that runs a bounded operator action until nothing is left.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, request } from './api';
import { JobByIdDocument, type JobFullFragment } from './gql/graphql';
import { PULSE_MS } from './hooks';

/** One job as followed: undefined before the first answer, null when there is no such job. */
export interface FollowedJob {
  job: JobFullFragment | null | undefined;
  /** The last read or the live feed failed: why (the job shown is then older). */
  error: ApiError | null;
  /** When it was last read (this browser's clock, ms). */
  readAt: number | null;
}

/** States after which a job never changes again (DESIGN.md §4.4, `jobChanged`). */
export const FINAL_STATES: readonly string[] = ['COMPLETED', 'DEAD'];

/**
 * Follow job `id` of `queue`: read it, then read it again every {@link PULSE_MS} until it is in a
 * final state or gone. `refresh()` reads it at once (after an action on it).
 */
export function useJob(queue: string, id: string, epoch: number): [FollowedJob, () => void] {
  const [state, setState] = useState<FollowedJob>({ job: undefined, error: null, readAt: null });
  const kick = useRef<() => void>(() => {});
  useEffect(() => {
    setState({ job: undefined, error: null, readAt: null });
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let inFlight = false;
    const read = async () => {
      if (stopped || inFlight) return;
      inFlight = true;
      clearTimeout(timer);
      let again = true;
      try {
        const data = await request(JobByIdDocument, { queue, id });
        const job = data.queue.job ?? null;
        if (!stopped) setState({ job, error: null, readAt: Date.now() });
        again = job !== null && !FINAL_STATES.includes(job.state);
      } catch (error) {
        if (!stopped) setState((prev) => ({ ...prev, error: error as ApiError }));
      } finally {
        inFlight = false;
        if (!stopped && again) timer = setTimeout(read, PULSE_MS);
      }
    };
    kick.current = () => void read();
    void read();
    return () => {
      stopped = true;
      clearTimeout(timer);
      kick.current = () => {};
    };
  }, [queue, id, epoch]);
  return [state, () => kick.current()];
}
