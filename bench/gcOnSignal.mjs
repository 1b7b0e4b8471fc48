/**
 * Preloaded into the benchmark's server process (`node --expose-gc --import <this>`), never into
 * a real one: on SIGUSR2, two full garbage collections, then one line on stderr with
 * `process.memoryUsage()` and the size V8 reserves for its new space (`newSpace`, bytes: both
 * semi-spaces), so memory is read after a forced GC instead of wherever the last one left it
 * (`bench/server.ts`'s `memory()`). The new space is what tells a reading of an idle server from
 * one of a start-up's transient: start-up's allocations grow it to 2 × 16 MiB, and V8 shrinks it
 * back only once its allocation-rate accounting has seen the process idle (PERFORMANCE.md §5).
 */
import v8 from 'node:v8';

process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
  const newSpace = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  const usage = { ...process.memoryUsage(), newSpace: newSpace?.space_size ?? 0 };
  process.stderr.write(`BENCH-MEMORY ${JSON.stringify(usage)}\n`);
});
