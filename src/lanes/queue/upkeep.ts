/**
 * `Queue`'s upkeep: the reap (expired leases, due delayed jobs, retention trims, job watches,
 * then forgotten groups), the reaper's per-queue lock, the Redis clock and the job-layout check
 * at start. The contracts are on `Queue`'s methods (queue.ts), which delegate here.
 */
import { Defaults } from '../defaults.js';
import * as validate from '../validate.js';
import type { QueueCore } from './core.js';
import { reconcile } from './reconcile.js';
import { type LayoutUpgrade, type LayoutUpgradeOptions, upgradeLayout } from './upgrade.js';

export class Upkeep {
  constructor(private readonly core: QueueCore) {}

  async reap(options: { batch?: number; groupGraceMs?: number } = {}): Promise<number> {
    const opts = validate.options('options', options, { batch: true, groupGraceMs: true });
    const batch = validate.reapBatch(opts.batch ?? Defaults.reapBatch);
    const graceMs = validate.groupGraceMs(opts.groupGraceMs ?? Defaults.groupGraceMs);
    this.core.watchState();
    let total = 0;
    for (;;) {
      const counts = await this.core.commands.reap({ batch, r: Math.random() });
      total += counts[0];
      const full = Math.max(...counts) >= batch;
      if (!full) break;
    }
    const forgetBatch = Defaults.forgetBatch;
    for (;;) {
      const [forgotten, kept] = await this.core.commands.forgetGroups({
        graceMs,
        batch: forgetBatch,
      });
      // A kept group is judged again one grace later, so with a grace shorter than a call
      // it is due again at once: go on only while a call forgets something.
      if (forgotten === 0 || forgotten + kept < forgetBatch) break;
    }
    // Lapsed workers: one bounded call per pass (DESIGN.md §4.9 "Workers").
    await this.core.commands.pruneWorkers(Defaults.workerPruneBatch);
    return total;
  }

  async checkLayout(): Promise<void> {
    await this.core.laidOut(async () => undefined);
  }

  async upgradeLayout(options: LayoutUpgradeOptions = {}): Promise<LayoutUpgrade> {
    const known = { batch: true, maxSteps: true, actor: true } as const;
    const opts = validate.options('options', options, known);
    const batch = validate.layoutBatch(opts.batch ?? Defaults.layoutUpgradeBatch);
    const maxSteps =
      opts.maxSteps === undefined ? Number.POSITIVE_INFINITY : validate.layoutSteps(opts.maxSteps);
    const history = this.core.historyArgs(opts.actor === undefined ? {} : { actor: opts.actor });
    const { commands, keys, name, redis } = this.core;
    const upgrade = await upgradeLayout(commands, name, keys, { batch, maxSteps });
    // The indexes this version keeps beside the jobs (rankings, the registry's last-seen) were
    // not kept by the version before: rebuilt once the jobs are of this layout.
    if (!upgrade.done || upgrade.layout === null) return upgrade;
    return { ...upgrade, repair: await reconcile(redis, keys, commands, 'repair', history) };
  }

  async lockReaping(holder: string, intervalMs: number, lockMs: number): Promise<boolean> {
    return (await this.core.commands.reaperLock({ id: holder, intervalMs, lockMs })) === 1;
  }

  async releaseReaping(holder: string): Promise<void> {
    await this.core.commands.reaperUnlock({ id: holder });
  }

  clock(): Promise<number> {
    return this.core.commands.clock();
  }
}
