/**
 * `npm run demo` keeps its Redis between runs: at start it tops the noisy tenant's backlog up
 * to its target rather than adding the target again (every restart used to add 3,000).
 */
import { describe, expect, it } from 'vitest';
import { topUp } from '../../demo/topUp.js';
import { useEngine } from '../support/lanes.js';

const engine = useEngine();

describe('the demo backlog', () => {
  it('is topped up to the target: a restart adds only what is missing, never the whole target', async () => {
    const queue = engine.queue();
    expect(await topUp(queue, 'noisy', 30, () => ({ ms: 1 }))).toBe(30);
    // A restart finds the saved backlog: nothing to add.
    expect(await topUp(queue, 'noisy', 30, () => ({ ms: 1 }))).toBe(0);
    expect((await queue.group('noisy')).pending).toBe(30);
    // Some were worked off before the next restart: only those come back.
    for (let i = 0; i < 12; i++) await queue.claim({ leaseMs: 60_000 });
    expect(await topUp(queue, 'noisy', 30, () => ({ ms: 1 }))).toBe(12);
    expect((await queue.group('noisy')).pending).toBe(30);
  });
});
