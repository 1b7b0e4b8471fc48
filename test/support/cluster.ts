/**
 * A real Redis Cluster per test file: {@link useTestCluster} starts the 3-master + 3-replica
 * cluster of `bench/clusterProcess.ts` (the benchmark starts the same one) in `beforeAll` and
 * stops it in `afterAll`, every node with the harness' keyspace notifications on.
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
  startTestCluster as startCluster,
  type TestCluster,
} from '../../bench/clusterProcess.js';
import { TEST_NOTIFY_FLAGS } from './redis.js';

export * from '../../bench/clusterProcess.js';

/**
 * A master sends a replica that connects its snapshot this long after (s): Redis waits 5 s by
 * default for more replicas to share one transfer, a wait every cluster start (the harness waits
 * for every replica in sync) and every replica restarted after a kill or failover sat through.
 * The tests' replicas come one per master, so none would share it.
 */
const REPL_DISKLESS_SYNC_DELAY_S = 0;

/**
 * A test cluster (see the module comment), every node with {@link TEST_NOTIFY_FLAGS} and
 * {@link REPL_DISKLESS_SYNC_DELAY_S}.
 */
export function startTestCluster(options: StartTestClusterOptions = {}): Promise<TestCluster> {
  return startCluster({
    notifyKeyspaceEvents: TEST_NOTIFY_FLAGS,
    ...options,
    extraArgs: [
      '--repl-diskless-sync-delay',
      String(REPL_DISKLESS_SYNC_DELAY_S),
      ...(options.extraArgs ?? []),
    ],
  });
}

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
