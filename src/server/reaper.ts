/**
 * The reaper loop: every `intervalMs`, every registered queue's expired leases are retried
 * with their permits released (`Queue.reap`, script `reap-9.lua`). Runs never overlap; any
 * number of server processes may run it at once, since each reap is one atomic script.
 */
import type { Logger } from 'pino';
import type { Ringmaster } from '../lanes/index.js';

export class Reaper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

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
    for (const name of await this.engine.queues()) {
      const n = await this.engine.queue(name).reap();
      if (n > 0) this.logger.info({ queue: name, reaped: n }, 'expired leases reaped');
      total += n;
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
