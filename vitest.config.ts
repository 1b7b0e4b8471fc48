import { defineConfig } from 'vitest/config';
import { HeavyFirstSequencer } from './test/support/sequencer.js';

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module) builds. Node, and so the server, loads the
    // CJS one everywhere; Vite would give our sources the ESM one while dependencies (Pothos,
    // graphql-scalars) get CJS, and two graphql instances cannot share a schema.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The CLI compiled once for the run, for the CLI tests' children (the file says why).
    globalSetup: ['test/support/bundles.ts'],
    // Clusters, fault scenarios, browsers and clones first: on a fresh clone (no timings cached)
    // a long one started last would leave a worker idle (the file says why).
    sequence: { sequencer: HeavyFirstSequencer },
    // Forks, not threads: tests spawn and signal real redis-server children, and a child started
    // from a worker thread would be tied to that thread's lifetime (see src/server/redisProcess/).
    pool: 'forks',
    // Real Redis processes start, stop and restart inside tests and hooks.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The machine has 2 cores; more workers only contend with the Redis servers they start.
    maxWorkers: 2,
  },
});
