/**
 * The engine's entry point: per-queue handles over one Redis connection, and the queue
 * registry. Knows nothing of GraphQL; every entry point (GraphQL, workers, scripts) uses it.
 */
import type { Redis } from 'ioredis';
import { queuesKey } from './keys.js';
import { Queue } from './queue.js';

/** Engine settings. */
export interface RingmasterOptions {
  /** Key prefix `P` (DESIGN.md §2). Default `emq`. */
  readonly prefix?: string;
}

export class Ringmaster {
  /** Key prefix `P`. */
  readonly prefix: string;

  /** @param redis the shared (non-blocking) connection every queue handle uses */
  constructor(
    readonly redis: Redis,
    options: RingmasterOptions = {},
  ) {
    this.prefix = options.prefix ?? 'emq';
  }

  /**
   * A handle on queue `name`. Cheap, and touches nothing in Redis, so it is made per call
   * rather than cached (a cache keyed by caller-chosen names would grow without bound).
   * @throws RingmasterError BAD_USER_INPUT for an invalid queue name
   */
  queue(name: string): Queue {
    return new Queue(this.redis, name, { prefix: this.prefix });
  }

  /** Names of every queue ever steered or enqueued to (`P:queues`), sorted. */
  async queues(): Promise<string[]> {
    return (await this.redis.smembers(queuesKey(this.prefix))).sort();
  }
}
