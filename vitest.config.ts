import { defineConfig } from 'vitest/config';
import { HeavyFirstSequencer } from './test/support/sequencer.js';

/**
 * The files that start, kill or reconfigure whole systems — a Redis Cluster, a fault scenario, the
 * server as a process, a browser — each run in a module graph of their own (vitest's isolation).
 * Every other file shares its worker's imports with the files before it: a file's imports (the
 * engine, the server, GraphQL) cost ~1.5 s of CPU each, about half of what those files spend.
 */
const ISOLATED = [
  'test/cluster/**/*.test.ts',
  'test/faults/**/*.test.ts',
  'test/server/**/*.test.ts',
];

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module) builds. Node, and so the server, loads the
    // CJS one everywhere; Vite would give our sources the ESM one while dependencies (Pothos,
    // graphql-scalars) get CJS, and two graphql instances cannot share a schema.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
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
    projects: [
      { extends: true, test: { name: 'systems', include: ISOLATED } },
      {
        extends: true,
        test: { name: 'units', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false },
      },
    ],
  },
});
