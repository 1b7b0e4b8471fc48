/**
 * The live feed's open watches of one kind (rings, groups, jobs, history streams), one per key,
 * shared by every subscriber of that key: found, or made on the first subscriber, and forgotten
 * when the last one leaves (DESIGN.md §4.4). Every registry of a feed counts its watches in
 * one {@link WatchBudget}, `maxWatches` for all kinds together.
 */

/** What a registry's watches hold of the feed: the count of distinct watches, all kinds. */
export interface WatchBudget {
  /**
   * Count one more watch, or refuse it.
   * @throws what the feed refuses with (LIMIT_EXCEEDED at `maxWatches`); nothing is counted
   */
  admit(): void;
  /** Count one watch less. */
  closed(): void;
}

/** The part of a watch a registry uses: its teardown. */
export interface Disposable {
  dispose(): void;
}

export class WatchRegistry<W extends Disposable> {
  private readonly entries = new Map<string, { readonly queue: string; readonly watch: W }>();

  constructor(private readonly budget: WatchBudget) {}

  /**
   * The watch of `key`, or, admitted by the budget, the one `make` makes for it (of `queue`,
   * for {@link queues}). `make` is given `closed`, for the watch to call once when its last
   * subscriber leaves: it counts the watch closed and forgets it, and answers whether it was
   * still the watch of `key` (false after {@link clear}).
   * @throws what the budget refuses with, before `make` is called
   */
  obtain(key: string, queue: string, make: (closed: () => boolean) => W): W {
    const existing = this.entries.get(key);
    if (existing !== undefined) return existing.watch;
    this.budget.admit();
    const entry = {
      queue,
      watch: make(() => {
        this.budget.closed();
        if (this.entries.get(key) !== entry) return false;
        this.entries.delete(key);
        return true;
      }),
    };
    this.entries.set(key, entry);
    return entry.watch;
  }

  /** The watch of `key`, if one is open. */
  get(key: string): W | undefined {
    return this.entries.get(key)?.watch;
  }

  /** Every open watch. */
  watches(): W[] {
    return [...this.entries.values()].map((entry) => entry.watch);
  }

  /** The queue of every open watch (a queue once per watch). */
  queues(): string[] {
    return [...this.entries.values()].map((entry) => entry.queue);
  }

  /** Dispose of every open watch and forget them all (the feed stops). */
  clear(): void {
    const entries = [...this.entries.values()];
    this.entries.clear();
    for (const { watch } of entries) watch.dispose();
  }
}
