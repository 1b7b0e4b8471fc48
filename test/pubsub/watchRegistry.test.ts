/**
 * The live feed's registry of watches (src/pubsub/watchRegistry.ts): one watch per key, made on
 * the first subscriber and forgotten after the last, counted in the feed's one budget.
 */
import { describe, expect, it } from 'vitest';
import { type WatchBudget, WatchRegistry } from '../../src/pubsub/watchRegistry.js';

class FakeWatch {
  disposed = 0;
  constructor(
    readonly key: string,
    readonly closed: () => boolean,
  ) {}
  dispose(): void {
    this.disposed++;
  }
}

/** A budget of `max` watches that counts what it admitted. */
function budget(max: number): WatchBudget & { open: number } {
  return {
    open: 0,
    admit() {
      if (this.open >= max) throw new Error('LIMIT_EXCEEDED');
      this.open++;
    },
    closed() {
      this.open--;
    },
  };
}

describe('WatchRegistry', () => {
  it('makes one watch per key, on the first obtain, and shares it after', () => {
    const count = budget(10);
    const registry = new WatchRegistry<FakeWatch>(count);
    let made = 0;
    const make = (key: string) => (closed: () => boolean) => {
      made++;
      return new FakeWatch(key, closed);
    };
    const a = registry.obtain('a', 'q1', make('a'));
    expect(registry.obtain('a', 'q1', make('a'))).toBe(a);
    const b = registry.obtain('b', 'q2', make('b'));
    expect(made).toBe(2);
    expect(count.open).toBe(2);
    expect(registry.get('a')).toBe(a);
    expect(registry.watches()).toEqual([a, b]);
    expect(registry.queues()).toEqual(['q1', 'q2']);
  });

  it('closed counts the watch closed and forgets it, so the next obtain makes a new one', () => {
    const count = budget(10);
    const registry = new WatchRegistry<FakeWatch>(count);
    const a = registry.obtain('a', 'q', (closed) => new FakeWatch('a', closed));
    expect(a.closed()).toBe(true);
    expect(count.open).toBe(0);
    expect(registry.get('a')).toBeUndefined();
    expect(registry.queues()).toEqual([]);
    const again = registry.obtain('a', 'q', (closed) => new FakeWatch('a', closed));
    expect(again).not.toBe(a);
    // The old watch's closing again does not forget the new one.
    expect(a.closed()).toBe(false);
    expect(registry.get('a')).toBe(again);
  });

  it('a watch the budget refuses is not made, and nothing is held', () => {
    const count = budget(1);
    const registry = new WatchRegistry<FakeWatch>(count);
    registry.obtain('a', 'q', (closed) => new FakeWatch('a', closed));
    let made = false;
    expect(() =>
      registry.obtain('b', 'q', (closed) => {
        made = true;
        return new FakeWatch('b', closed);
      }),
    ).toThrow('LIMIT_EXCEEDED');
    expect(made).toBe(false);
    expect(registry.get('b')).toBeUndefined();
    expect(count.open).toBe(1);
    // One already open is still shared at the limit.
    expect(registry.obtain('a', 'q', () => new FakeWatch('x', () => false)).key).toBe('a');
  });

  it('clear disposes of every watch once and forgets them', () => {
    const registry = new WatchRegistry<FakeWatch>(budget(10));
    const a = registry.obtain('a', 'q', (closed) => new FakeWatch('a', closed));
    const b = registry.obtain('b', 'q', (closed) => new FakeWatch('b', closed));
    registry.clear();
    expect([a.disposed, b.disposed]).toEqual([1, 1]);
    expect(registry.watches()).toEqual([]);
    expect(a.closed()).toBe(false);
  });
});
