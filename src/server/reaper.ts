/**
 * The server's reaper: the engine's {@link Reaper} over every registered queue, every
 * `REAP_INTERVAL_MS`, with what it does logged. Any number of servers and workers may run one
 * at once, each at its own interval (DESIGN.md §3, "Many reapers of one queue").
 *
 * One queue cannot stop the others: a name in `P:queues` that is not a valid queue name is
 * skipped (`Ringmaster.queues`), and a queue whose reap Redis refuses (a key of the wrong type,
 * say) is logged once (not per tick) and passed over; the pass goes on to the next queue.
 */
import type { Logger } from 'pino';
import { errorLine } from '../lanes/errors.js';
import { Defaults, Reaper, type Ringmaster } from '../lanes/index.js';

/**
 * A reaper of every queue of `engine`, logging to `logger`; not started. `intervalMs` is
 * `REAP_INTERVAL_MS`, `groupGraceMs` `GROUP_GRACE_MS` (ms).
 */
export function serverReaper(
  engine: Ringmaster,
  intervalMs: number,
  logger: Logger,
  groupGraceMs: number = Defaults.groupGraceMs,
): Reaper {
  return new Reaper(engine, {
    intervalMs,
    groupGraceMs,
    onReaped: (queue, reaped) => logger.info({ queue, reaped }, 'expired leases reaped'),
    onError: (error, queue) => {
      if (queue === null) {
        logger.warn(
          { err: errorLine(error) },
          'reaper run failed, or its read of the queue registry (then the queues last read are reaped); retrying next tick',
        );
      } else logger.warn({ queue, err: errorLine(error) }, 'reaping this queue failed');
    },
    onRecovered: (queue) => logger.info({ queue }, 'reaping this queue again'),
  });
}
