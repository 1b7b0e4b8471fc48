/**
 * Whether the Redis may evict Ringmaster's keys. Every key Ringmaster writes is state: an
 * evicted lane or job hash is a lost job, an evicted ring strands its groups, an evicted `seq`
 * makes ids be reused (a fault-injection run lost 1,584 of 3,000 jobs under `allkeys-random`).
 * Only `noeviction` keeps them all: at `maxmemory` Redis then refuses writes instead.
 *
 * The policy is read from `INFO memory` (`maxmemory_policy`), not `CONFIG GET`, so the check
 * works on a managed Redis where CONFIG is renamed away or refused.
 */
import { masterClients, type RedisClient } from './client.js';

/** The only `maxmemory-policy` under which Redis never drops a key to make room. */
export const SAFE_EVICTION_POLICY = 'noeviction';

/** What {@link readEvictionPolicy} finds. */
export interface EvictionCheck {
  /** `maxmemory_policy` from `INFO memory` (e.g. `allkeys-lru`), or `unknown` when absent. */
  readonly policy: string;
  /** True only for `noeviction`. */
  readonly ok: boolean;
}

/** The one line naming the policy, what it does to Ringmaster, and the fix. */
export function evictionMessage(policy: string): string {
  const found =
    policy === 'unknown'
      ? 'Redis does not report its maxmemory-policy (INFO memory has no maxmemory_policy)'
      : `Redis maxmemory-policy is ${policy}`;
  return (
    `${found}: at maxmemory Redis may evict Ringmaster's keys (jobs, lanes, the ring, the id ` +
    `counter) and jobs are lost. Set it to noeviction: CONFIG SET maxmemory-policy noeviction, ` +
    `and maxmemory-policy noeviction in redis.conf (on a managed Redis, its parameter group)`
  );
}

/** Thrown by `Ringmaster.checkServer()` when the Redis may evict keys. */
export class EvictionPolicyError extends Error {
  override readonly name = 'EvictionPolicyError';
  constructor(
    /** The policy found (`allkeys-random`, …, or `unknown`). */
    readonly policy: string,
  ) {
    super(evictionMessage(policy));
  }
}

/**
 * Read the Redis' `maxmemory-policy` from `INFO memory` (one round trip; works where CONFIG is
 * refused). On a Redis Cluster every master is read (one INFO each, at once) and the first
 * policy that is not `noeviction` is reported, since a queue on that master would lose keys.
 * (A replica's policy applies once it is promoted; re-reading now and then, as the server does,
 * finds it then.) Whatever ioredis throws (connection lost, INFO refused by an ACL) passes
 * through; on a cluster, the first master's failure.
 */
export async function readEvictionPolicy(redis: RedisClient): Promise<EvictionCheck> {
  const infos = await Promise.all((await masterClients(redis)).map((node) => node.info('memory')));
  const policies = infos.map((info) => /^maxmemory_policy:(\S+)/m.exec(info)?.[1] ?? 'unknown');
  const policy = policies.find((p) => p !== SAFE_EVICTION_POLICY) ?? SAFE_EVICTION_POLICY;
  return { policy, ok: policy === SAFE_EVICTION_POLICY };
}
