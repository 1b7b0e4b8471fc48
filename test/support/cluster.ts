/**
 * A real Redis Cluster per test file: {@link useTestCluster} starts the 3-master + 3-replica
 * cluster of `./clusterProcess.ts` in `beforeAll` and stops it in `afterAll`.
 *
 * ```ts
 * const handle = useTestCluster();
 * it('…', async () => { const c = handle.client(); await c.set('{q}:k', 'v'); });
 * ```
 */
import type { Cluster, ClusterOptions } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import {
  type StartTestClusterOptions,
  startTestCluster,
  type TestCluster,
} from './clusterProcess.js';

export * from './clusterProcess.js';

/** What {@link useTestCluster} returns: a getter that works inside tests and hooks. */
export interface TestClusterHandle {
  readonly cluster: TestCluster;
  client(options?: ClusterOptions): Cluster;
}

/** Start a test cluster in `beforeAll` and stop it in `afterAll` of the enclosing suite. */
export function useTestCluster(options: StartTestClusterOptions = {}): TestClusterHandle {
  let current: TestCluster | undefined;
  beforeAll(async () => {
    current = await startTestCluster(options);
  }, 60_000);
  afterAll(async () => {
    await current?.stop();
    current = undefined;
  });
  const get = () => {
    if (!current) throw new Error('useTestCluster(): read it inside a test or hook');
    return current;
  };
  return {
    get cluster() {
      return get();
    },
    client: (clientOptions) => get().client(clientOptions),
  };
}
