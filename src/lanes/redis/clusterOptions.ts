/**
 * ioredis `Cluster` options whose redirection and retry budgets outlast a failover, so a call
 * made while a master fails waits for its replica to be promoted instead of failing with
 * "Too many Cluster redirections" (ioredis' defaults give up after 16 redirections of at most
 * 100 ms: ~1.6 s, against a failover that takes the cluster's `cluster-node-timeout` to detect
 * and about as long again to elect, promote and learn).
 *
 * How ioredis spends the budget: every MOVED, TRYAGAIN, CLUSTERDOWN or closed connection a
 * command meets costs one of its `maxRedirections` and waits up to the matching
 * `retryDelayOn…` before it is sent again (a closed connection and CLUSTERDOWN also refresh the
 * slot map). With every delay at {@link CLUSTER_RETRY_DELAY_MS}, the count is set so that a
 * command keeps trying for at least {@link failoverBudgetMs}, twice the node timeout and more. A MOVED is delayed too (ioredis' default resends it at once), so a
 * stale slot map bouncing between two nodes cannot spend the budget in a few milliseconds.
 */
import type { ClusterOptions, Redis } from 'ioredis';

/** Redis' default `cluster-node-timeout` (ms), assumed where CONFIG GET is refused. */
export const DEFAULT_NODE_TIMEOUT_MS = 15_000;

/** The delay before each retry of a redirected or refused command (ms). */
export const CLUSTER_RETRY_DELAY_MS = 100;

/** Attempts in a row to reach the whole cluster before queued calls fail (the ~8 s of one Redis). */
const CLUSTER_RECONNECTS_BEFORE_FAILING = 4;

/**
 * How long a command keeps being retried through a failover (ms): twice the node timeout (the
 * failure is detected after one, the replica elected and promoted within about another), plus
 * 2 s for the client to learn the new slot map.
 */
export function failoverBudgetMs(nodeTimeoutMs: number): number {
  return 2 * nodeTimeoutMs + 2_000;
}

/**
 * `Cluster` options for Ringmaster: the budgets above, plus
 * - `slotsRefreshInterval` 2,000 ms: a graceful failover or a slot move is learnt within 2 s
 *   even by a client that sends nothing to the slot meanwhile (ioredis' default is 5 s);
 * - `enableAutoPipelining` off (as the server's single connection: a NOSCRIPT reply inside an
 *   auto-pipeline can crash ioredis 5.11, issue #1931);
 * - `clusterRetryStrategy`: while no node of the cluster answers, reconnect every 100 ms to 2 s
 *   for ever, but fail the calls held meanwhile after {@link CLUSTER_RECONNECTS_BEFORE_FAILING}
 *   attempts (REDIS_UNAVAILABLE within ~8 s, as with one Redis), rather than hold them until the
 *   cluster returns.
 * `redisOptions` (password, TLS, …) are the caller's to add.
 *
 * @param nodeTimeoutMs the cluster's `cluster-node-timeout` (ms; {@link readNodeTimeout})
 */
export function clusterOptions(nodeTimeoutMs: number = DEFAULT_NODE_TIMEOUT_MS): ClusterOptions {
  // ioredis batches the retries of one kind and sends them when the first one's delay is up,
  // so a retry joining a batch waits less: measured about 67 ms a retry on average under load
  // (120 retries lasted 8.1 s). Twice the count keeps the budget under load; idle, it lasts
  // up to twice as long.
  const redirections = Math.ceil((2 * failoverBudgetMs(nodeTimeoutMs)) / CLUSTER_RETRY_DELAY_MS);
  return {
    maxRedirections: redirections,
    retryDelayOnMoved: CLUSTER_RETRY_DELAY_MS,
    retryDelayOnFailover: CLUSTER_RETRY_DELAY_MS,
    retryDelayOnClusterDown: CLUSTER_RETRY_DELAY_MS,
    retryDelayOnTryAgain: CLUSTER_RETRY_DELAY_MS,
    slotsRefreshInterval: 2_000,
    enableAutoPipelining: false,
    clusterRetryStrategy(this: unknown, times: number): number {
      if (times >= CLUSTER_RECONNECTS_BEFORE_FAILING) {
        // ioredis' own way to fail what its offline queue holds (private, hence the look-up).
        const cluster = this as { flushQueue?: (error: Error) => void } | undefined;
        cluster?.flushQueue?.(new Error('None of startup nodes is available'));
      }
      return Math.min(100 * times, 2_000);
    },
  };
}

/**
 * The cluster's `cluster-node-timeout` (ms) as one node reports it (CONFIG GET); where CONFIG
 * is refused or renamed (a managed Redis), {@link DEFAULT_NODE_TIMEOUT_MS}.
 */
export async function readNodeTimeout(node: Redis): Promise<number> {
  try {
    const reply = (await node.config('GET', 'cluster-node-timeout')) as unknown;
    const value = Array.isArray(reply) ? Number(reply[1]) : Number.NaN;
    return Number.isInteger(value) && value > 0 ? value : DEFAULT_NODE_TIMEOUT_MS;
  } catch {
    return DEFAULT_NODE_TIMEOUT_MS;
  }
}
