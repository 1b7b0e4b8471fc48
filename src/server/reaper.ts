/**
 * The reaper loop: every `intervalMs`, every registered queue's expired leases are retried
 * with their permits released (`Queue.reap`, script `reap-9.lua`). Runs never overlap; any
 * number of server processes may run it at once, since each reap is one atomic script.
 *
 * One queue cannot stop the others: a name in `P:queues` that is not a valid queue name is
 * skipped (`Ringmaster.queues`), and a queue whose reap Redis refuses (a key of the wrong type,
 * say) is logged and passed over, and the run goes on to the next queue.
 */
import { ReplyError } from 'ioredis';
import type { Logger } from 'pino';
import type { Ringmaster } from '../lanes/index.js';

export class Reaper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  /** Queues whose last reap Redis refused → its message (logged once per change, not per tick). */
  private readonly failing = new Map<string, string>();

  constructor(
    private readonly engine: Ringmaster,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /** Reap every queue once (also what each tick does). Returns jobs reaped (count). */
  async reapAll(): Promise<number> {
    let total = 0;
    const names = await this.engine.queues();
    for (const name of names) {
      let n: number;
      try {
        n = await this.engine.queue(name).reap();
      } catch (error) {
        // This queue only (Redis refused its script, say WRONGTYPE on one of its keys): the
        // others are still reaped. A lost connection fails the whole run; the next tick retries.
        if (!(error instanceof ReplyError) && this.engine.redis.status !== 'ready') throw error;
        const message = error instanceof Error ? error.message : String(error);
        if (this.failing.get(name) !== message) {
          this.failing.set(name, message);
          this.logger.warn({ queue: name, err: message }, 'reaping this queue failed');
        }
        continue;
      }
      if (this.failing.delete(name)) this.logger.info({ queue: name }, 'reaping this queue again');
      if (n > 0) this.logger.info({ queue: name, reaped: n }, 'expired leases reaped');
      total += n;
    }
    // Forget queues no longer registered, so the map holds only registered queues.
    if (this.failing.size > 0) {
      const registered = new Set(names);
      for (const name of this.failing.keys()) if (!registered.has(name)) this.failing.delete(name);
    }
    return total;
  }

  /** Stop ticking and wait for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.reapAll()
        .then(() => undefined)
        .catch((err: unknown) => this.logger.warn({ err }, 'reaper run failed; retrying next tick'))
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, this.intervalMs);
    this.timer.unref();
  }
}
