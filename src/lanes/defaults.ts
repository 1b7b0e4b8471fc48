/**
 * The engine's defaults, in one place: the key prefix and the values of DESIGN.md §4 that the
 * engine, the server's settings and the GraphQL schema's default arguments all read.
 */

/** Defaults of DESIGN.md §2 (the prefix) and §4. */
export const Defaults = {
  /** Key prefix `P` (DESIGN.md §2). */
  prefix: 'emq',
  /** How long an enqueue's idempotency key is remembered (ms): 24 h. */
  keyTtlMs: 86_400_000,
  leaseMs: 30_000,
  maxAttempts: 3,
  pageSize: 50,
  reapBatch: 1_000,
} as const;
