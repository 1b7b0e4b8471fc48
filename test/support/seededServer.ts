/**
 * The fixture of the API's refusal tests (the hostile and bad-input files): a Redis and a server
 * of the file's own, with something in every kind of key of one queue, so a test can send a
 * request meant to fail and check that the keyspace is byte for byte as it was.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Job } from '../../src/lanes/index.js';
import { seedEveryKey } from './api.js';
import type { TestRedisHandle } from './redis.js';
import { type TestServer, useTestServer } from './server.js';

/** What {@link useSeededServer} returns: getters that work inside tests and hooks. */
export interface SeededServer {
  /** The file's Redis. */
  readonly redis: TestRedisHandle;
  /** The server (reaper off: its loop would change the keyspace between two snapshots). */
  readonly api: TestServer;
  /** A connection to the file's Redis, for snapshots and raw reads. */
  readonly r: Redis;
  /** The seeded queue's active job: group `a`, leased for an hour. */
  readonly active: Job;
}

/**
 * Start a Redis and a server in `beforeAll` (stopped in `afterAll`) and seed `queue` with
 * {@link seedEveryKey}. Call it at the top level of a test file.
 */
export function useSeededServer(queue: string): SeededServer {
  // A day: no reap runs while a test compares two snapshots.
  const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
  const { redis } = api;
  let state: { r: Redis; active: Job } | undefined;
  beforeAll(async () => {
    state = { r: redis.client(), active: await seedEveryKey(api.server.engine.queue(queue)) };
    expect(state.active.group).toBe('a');
  });
  afterAll(() => {
    state = undefined;
  });
  const get = () => {
    if (state === undefined) {
      throw new Error('useSeededServer(): not running here (read it inside a test or hook)');
    }
    return state;
  };
  return {
    redis,
    get api() {
      get();
      return api;
    },
    get r() {
      return get().r;
    },
    get active() {
      return get().active;
    },
  };
}
