/**
 * The server's watch on Redis' `maxmemory-policy` (an evicting policy loses jobs and reuses ids): read at start, every
 * `intervalMs`, and by each `/ready` probe (`Ringmaster.checkEviction`, one `INFO memory`).
 * While the policy is anything but `noeviction`, `/ready` is 503 with `"eviction":"<policy>"`.
 * It can change at runtime (CONFIG SET), hence the re-reads; an error is logged once per change
 * to an evicting policy, naming it and the fix, and an info line when it is `noeviction` again.
 */
import type { Logger } from 'pino';
import { type EvictionCheck, evictionMessage, type Ringmaster } from '../lanes/internal.js';

export class EvictionWatch {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private last: EvictionCheck | null = null;

  constructor(
    private readonly engine: Ringmaster,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  /** The policy last read, or `unknown` before the first read answered. */
  get policy(): string {
    return this.last?.policy ?? 'unknown';
  }

  /** The last read found `noeviction` (false before any read answered). */
  get ok(): boolean {
    return this.last?.ok ?? false;
  }

  /**
   * Read the policy now; log when it changed. A failed read (Redis unreachable) keeps the last
   * answer, since it says nothing about the policy, and resolves to null.
   */
  async check(): Promise<EvictionCheck | null> {
    let found: EvictionCheck;
    try {
      found = await this.engine.checkEviction();
    } catch {
      return null;
    }
    const before = this.last;
    this.last = found;
    if (before?.policy !== found.policy) {
      if (!found.ok) {
        this.logger.error(
          { policy: found.policy, fix: 'CONFIG SET maxmemory-policy noeviction' },
          `${evictionMessage(found.policy)}; /ready answers 503 until then`,
        );
      } else if (before !== null) {
        this.logger.info({ policy: found.policy }, 'Redis maxmemory-policy is noeviction again');
      }
    }
    return found;
  }

  /** Re-read every `intervalMs` until {@link stop}. */
  start(): void {
    this.stopped = false;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.check().finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
  }
}
