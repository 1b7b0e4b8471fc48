/**
 * Preloaded into the benchmark's server process (`node --expose-gc --import <this>`), never into
 * a real one: on SIGUSR2, two full garbage collections, then one line on stderr with
 * `process.memoryUsage()`, so memory is read after a forced GC instead of wherever the last one
 * left it (`bench/server.ts`'s `memory()`).
 */
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
  process.stderr.write(`BENCH-MEMORY ${JSON.stringify(process.memoryUsage())}\n`);
});
