/**
 * Jobs in the console: one job followed live, pages of a job list that follow the
 * queue's snapshot, and the loop that runs a bounded operator action until nothing is left.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, request, subscribe } from './api';
import {
  JobByIdDocument,
  JobFollowDocument,
  type JobFullFragment,
  JobPlaceNowDocument,
} from './gql/graphql';
import { PULSE_MS, usePoll } from './hooks';

/** One job as followed: undefined before the first answer, null when there is no such job. */
export interface FollowedJob {
  job: JobFullFragment | null | undefined;
  /** The live feed failed: why (the job shown is then older). */
  error: ApiError | null;
  /** The feed ended: the job is in a final state or gone, and will not change again. */
  ended: boolean;
}

/** States after which a job never changes again (DESIGN.md §4.4, `jobChanged`). */
export const FINAL_STATES: readonly string[] = ['COMPLETED', 'DEAD'];

/**
 * Follow job `id` of `queue` live (`jobChanged`: the job as it is, then at each change; the feed
 * ends at COMPLETED, DEAD or gone). `refresh()` follows it again from a fresh read: after an
 * action that brings a final job back (a dead job requeued), whose feed had ended.
 */
export function useJob(queue: string, id: string, epoch: number): [FollowedJob, () => void] {
  const [state, setState] = useState<FollowedJob>({ job: undefined, error: null, ended: false });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let stopped = false;
    setState((prev) => ({ ...prev, error: null, ended: false }));
    const stop = subscribe(
      JobFollowDocument,
      { queue, id },
      (data) => {
        if (!stopped) setState({ job: data.jobChanged ?? null, error: null, ended: false });
      },
      (error) => {
        if (stopped) return;
        // An id that names no job (not a decimal string) is refused before anything is watched.
        if (error.code === 'JOB_NOT_FOUND') setState({ job: null, error: null, ended: true });
        else setState((prev) => ({ ...prev, error }));
      },
      () => {
        if (!stopped) setState((prev) => ({ ...prev, ended: true }));
      },
    );
    return () => {
      stopped = true;
      stop();
    };
  }, [queue, id, epoch, round]);
  return [state, () => setRound((r) => r + 1)];
}

/** Read job `id` of `queue` once: null when there is no such job (gone). */
export async function readJob(queue: string, id: string): Promise<JobFullFragment | null> {
  return (await request(JobByIdDocument, { queue, id })).queue.job ?? null;
}

/** A list read, as a panel holds it. */
export interface Listed<P> {
  /** The last answer for the list asked for; null before the first. */
  page: P | null;
  /** The last read failed: why (then `page` is older). */
  error: ApiError | null;
  /** Read it again now (after an action). Resolves with the answer, or null if it failed. */
  reload: () => Promise<P | null>;
}

/**
 * A list of jobs that follows the queue: `read` runs when `key` (what is asked: state, group,
 * page) changes and again whenever `tick` does (the snapshot shown moved: every
 * {@link PULSE_MS} at most, sooner when the live feed hints). Reads never overlap: a tick during a
 * read makes one more read after it. An answer for a key no longer asked is dropped.
 */
export function useListed<P>(read: () => Promise<P>, key: string, tick: unknown): Listed<P> {
  const [page, setPage] = useState<{ key: string; page: P } | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const latest = useRef({ read, key });
  latest.current = { read, key };
  const flight = useRef<Promise<P | null> | null>(null);
  const queued = useRef<Promise<P | null> | null>(null);

  const start = (): Promise<P | null> => {
    const { read: r, key: k } = latest.current;
    const p = (async () => {
      try {
        const answer = await r();
        if (latest.current.key === k) {
          setPage({ key: k, page: answer });
          setError(null);
        }
        return answer;
      } catch (failure) {
        if (latest.current.key === k) setError(failure as ApiError);
        return null;
      } finally {
        flight.current = null;
      }
    })();
    flight.current = p;
    return p;
  };
  // One read at a time; asked during a read, one more read follows it (however often asked).
  const run = (): Promise<P | null> => {
    const current = flight.current;
    if (!current) return start();
    if (!queued.current) {
      queued.current = current.then(() => {
        queued.current = null;
        return start();
      });
    }
    return queued.current;
  };

  useEffect(() => {
    void run();
  }, [key, tick]);

  return { page: page?.key === key ? page.page : null, error, reload: run };
}

/** Where a job stands (`Job.reason`, `position`, `estimatedStartAt`), as last read. */
export type JobPlace = Pick<JobFullFragment, 'state' | 'reason' | 'position' | 'estimatedStartAt'>;

/**
 * Where pending job `id` stands, read every {@link PULSE_MS} while `pending`: its place moves as
 * the jobs ahead of it are claimed, which its own live feed does not tell. Null before the
 * first read, when not pending, and when the read failed (the followed job's own fields stand).
 */
export function useJobPlace(queue: string, id: string, pending: boolean): JobPlace | null {
  const [place, setPlace] = useState<JobPlace | null>(null);
  usePoll(
    async () => {
      if (!pending) {
        setPlace(null);
        return;
      }
      try {
        setPlace((await request(JobPlaceNowDocument, { queue, id })).queue.job ?? null);
      } catch {
        setPlace(null);
      }
    },
    PULSE_MS,
    [queue, id, pending],
  );
  return pending ? place : null;
}
