/**
 * Helpers for the engine's behaviour tests: a queue of its own for every test, exact reads of
 * a queue's raw Redis state (so tests assert what is stored, not what the engine says), a
 * byte-for-byte snapshot of the whole keyspace, and bounded polls on the Redis clock.
 *
 * Nothing here mocks Redis: every helper talks to the real server of `useTestRedis()`.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import { Queue, RingmasterError } from '../../src/lanes/index.js';
import { masterClients, type RedisClient } from '../../src/lanes/redis/client.js';
import { type TestRedisHandle, useTestRedis } from './redis.js';

let queueCounter = 0;
/** Per test file and run: under REDIS_URL every file (and every run) shares one database. */
const FILE_TAG = randomBytes(4).toString('hex');

/** The operations fields of a group none of them was set on (weight 1, no rate, no override, no bound). */
export const NO_OPERATIONS = {
  weight: 1,
  rateLimit: null,
  rateLimitedUntil: null,
  rateReopenedAt: null,
  limitOverride: null,
  pauseOverride: null,
  reserve: 0,
  maxPending: null,
} as const;

/** A fresh, valid queue name, unique across test files and runs. */
export function uniqueQueueName(stem = 'q'): string {
  queueCounter += 1;
  return `${stem}-${FILE_TAG}-${queueCounter}`;
}

/** A test file's Redis plus one shared engine connection. */
export interface EngineHandle {
  readonly handle: TestRedisHandle;
  /** The shared connection (opened in beforeAll). */
  redis(): Redis;
  /** A new tracked connection. */
  client(): Redis;
  /** A queue of its own for this test, on the shared connection unless `redis` is given. */
  queue(redis?: Redis): Queue;
}

/** `useTestRedis()` plus a shared connection and per-test queues. */
export function useEngine(): EngineHandle {
  const handle = useTestRedis();
  let shared: Redis | undefined;
  const redis = (): Redis => {
    shared ??= handle.client();
    return shared;
  };
  return {
    handle,
    redis,
    client: () => handle.client(),
    queue: (conn) => new Queue(conn ?? redis(), uniqueQueueName()),
  };
}

/** Everything a queue stores, read raw (numbers as Redis holds them, as strings). */
export interface RawState {
  ring: string[];
  paused: string[];
  glimit: Record<string, string>;
  gactive: Record<string, string>;
  wake: number;
  /** Every lane of the queue: group → job ids in FIFO order. Empty lanes do not exist. */
  lanes: Record<string, string[]>;
  /** Active job ids, by lease deadline. */
  active: string[];
  leases: Record<string, string>;
  dead: string[];
  groups: string[];
  stats: Record<string, string>;
}

/** Read `queue`'s whole state with plain commands (SCAN for the lanes: tests only). */
export async function rawState(queue: Queue): Promise<RawState> {
  const r = queue.redis;
  const k = queue.keys;
  const laneKeys = await scanAll(r, `${escapeGlob(k.base)}g:*:pending`);
  const lanes: Record<string, string[]> = {};
  for (const key of laneKeys.sort()) {
    const group = key.slice(`${k.base}g:`.length, -':pending'.length);
    lanes[group] = await r.zrange(key, 0, -1);
  }
  const [ring, paused, glimit, gactive, wake, active, leases, dead, groups, stats] =
    await Promise.all([
      r.lrange(k.ring, 0, -1),
      r.smembers(k.paused),
      r.hgetall(k.glimit),
      r.hgetall(k.gactive),
      r.llen(k.wake),
      r.zrange(k.active, 0, -1),
      r.hgetall(k.leases),
      r.zrange(k.dead, 0, -1),
      r.zrange(k.groups, 0, -1),
      r.hgetall(k.stats),
    ]);
  return {
    ring,
    paused: paused.sort(),
    glimit,
    gactive,
    wake,
    lanes,
    active,
    leases,
    dead,
    groups,
    stats,
  };
}

/** The stats hash as numbers, with the given counters defaulting to 0. */
export async function statsOf(queue: Queue): Promise<Record<string, number>> {
  const raw = await queue.redis.hgetall(queue.keys.stats);
  const out: Record<string, number> = {
    enqueued: 0,
    claimed: 0,
    completed: 0,
    retried: 0,
    reaped: 0,
    dead: 0,
    removed: 0,
    requeued: 0,
    pending: 0,
    active: 0,
    saturated: 0,
    delayed: 0,
  };
  for (const [field, value] of Object.entries(raw)) out[field] = Number(value);
  return out;
}

/** Every key matching `pattern`, via SCAN (of every master, on a Redis Cluster). */
export async function scanAll(r: RedisClient, pattern = '*'): Promise<string[]> {
  const keys: string[] = [];
  for (const node of await masterClients(r)) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
  }
  return keys;
}

/** `text` with SCAN MATCH's glob characters escaped, to match it literally. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/** `P:{Q}:reaper` and `P:{Q}:reapedAt`, a queue's reaper lock and last pass (src/lanes/keys.ts). */
const REAPER_LOCK = /:\{[^}]*\}:(?:reaper|reapedAt)$/;

/**
 * The live feed's ring marker (`P:{Q}:ringwatched`), renewed by a watching server every few
 * seconds whatever else happens: left out. The ring log's (`P:{Q}:ringlog`) expiry is raised at
 * each renewal too: its content is compared, not its expiry.
 */
const RING_MARKER = /:\{[^}]*\}:ringwatched$/;
const RING_LOG = /:\{[^}]*\}:ringlog$/;

/** A queue's settings hash (`P:{Q}:settings`). */
const isSettings = (key: string) => /:\{[^}]*\}:settings$/.test(key);

/** A settings hash's fields but its `epoch`, sorted, as JSON; null when nothing else is there. */
async function settingsWithoutEpoch(r: RedisClient, key: string): Promise<string | null> {
  // A settings key of another type (a test that breaks it on purpose) is compared whole.
  if ((await r.type(key)) !== 'hash') return (await r.dumpBuffer(key))?.toString('hex') ?? 'nil';
  const { epoch: _epoch, ...rest } = await r.hgetall(key);
  const entries = Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? null : JSON.stringify(entries);
}

/** How a snapshot writes a key's expiry. */
type ExpiryOf = (key: string) => Promise<string | number>;

/**
 * `keys` as the snapshots below take them: key → its value (hex of its DUMP) `|` its expiry
 * (`expiryOf`). Reaper locks and last passes (`P:{Q}:reaper`, `P:{Q}:reapedAt`) are left out:
 * a running reaper (a server's, a Worker's) writes them every interval whatever else happens,
 * and they hold no state, only who reaps next. So is the ring marker, and the ring log's expiry
 * (see RING_MARKER). A queue's `epoch` field of `settings` is left out too (a settings hash
 * holding nothing else is no key): the engine's state check writes it once, in the background,
 * some time after a queue's first write (DESIGN.md §3, "A Redis that lost a queue's state"), so
 * it may land between two snapshots that bracket a call that wrote nothing.
 */
async function takeSnapshot(
  r: RedisClient,
  keys: string[],
  expiryOf: ExpiryOf,
): Promise<Map<string, string>> {
  const kept = keys.filter((key) => !REAPER_LOCK.test(key) && !RING_MARKER.test(key)).sort();
  const entryOf = async (key: string): Promise<string | null> => {
    const [value, expiry] = await Promise.all([
      isSettings(key)
        ? settingsWithoutEpoch(r, key)
        : r.dumpBuffer(key).then((dump) => dump?.toString('hex') ?? 'nil'),
      RING_LOG.test(key) ? 'renewed' : expiryOf(key),
    ]);
    return value === null ? null : `${value}|${expiry}`;
  };
  const out = new Map<string, string>();
  // Sent together (ioredis writes each at once, on a cluster to each key's node), read in order.
  const CHUNK = 500;
  for (let i = 0; i < kept.length; i += CHUNK) {
    const chunk = kept.slice(i, i + CHUNK);
    const entries = await Promise.all(chunk.map(entryOf));
    for (const [j, key] of chunk.entries()) {
      const entry = entries[j];
      if (entry !== null && entry !== undefined) out.set(key, entry);
    }
  }
  return out;
}

/**
 * The whole keyspace, byte for byte (as {@link takeSnapshot} leaves keys out): key → hex of its
 * DUMP plus its PTTL. Two equal snapshots mean nothing was written (DUMP serialises the value;
 * PTTL catches a changed expiry).
 */
export async function snapshot(r: RedisClient): Promise<Map<string, string>> {
  return takeSnapshot(r, await scanAll(r), (key) => r.pttl(key));
}

/**
 * The whole keyspace as {@link snapshot} takes it, but with each key's absolute expiry
 * (PEXPIRETIME, Redis 7) in place of its PTTL, which counts down: idempotency keys expire, and
 * two equal snapshots must still mean nothing was written. (Redis 6.2, under REDIS_URL, has no
 * PEXPIRETIME: there only whether a key expires is compared.)
 */
export async function expirySnapshot(r: RedisClient): Promise<Map<string, string>> {
  return takeSnapshot(r, await scanAll(r), (key) =>
    r
      .call('PEXPIRETIME', key)
      .then(String)
      .catch(async () => ((await r.pttl(key)) > 0 ? 'expires' : 'never')),
  );
}

/**
 * One queue's keys (`P:{Q}:*`), byte for byte: key → hex of its DUMP and whether it expires.
 * Unlike {@link snapshot}, unaffected by other queues' keys and by the clock running down a
 * TTL (an idempotency key's): two equal ones mean the queue was not written.
 */
export async function queueSnapshot(queue: Queue): Promise<Map<string, string>> {
  const r = queue.redis;
  const keys = await scanAll(r, `${escapeGlob(queue.keys.base)}*`);
  return takeSnapshot(r, keys, async (key) => {
    const pttl = await r.pttl(key);
    return pttl < 0 ? pttl : 'expires';
  });
}

/**
 * Delete every key of `queue` (`P:{Q}:*`; one hash slot, so one UNLINK on a cluster too); its
 * name stays in the registry (`P:queues`, one member per queue). For files that snapshot the
 * whole keyspace once per test: each test's leftovers would make every later snapshot dearer
 * (hundreds of tests, thousands of keys, each DUMPed twice per test).
 */
export async function dropQueueKeys(queue: Queue): Promise<void> {
  const keys = await scanAll(queue.redis, `${escapeGlob(queue.keys.base)}*`);
  if (keys.length > 0) await queue.redis.unlink(...keys);
}

/**
 * `n` jobs of `group` that died the engine's way (enqueued with maxAttempts 1, claimed, failed
 * once with `error(i)` as its text, `died <i>` by default), in order of death; their ids. Throws when a claim takes
 * another job than the one just enqueued.
 */
export async function deadJobs(
  queue: Queue,
  group: string,
  n: number,
  error: (i: number) => string = (i) => `died ${i}`,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { id } = await queue.enqueue(group, { i }, { maxAttempts: 1 });
    const job = await queue.claim();
    if (job?.id !== id) throw new Error(`claimed ${job?.id}, expected ${id}`);
    await queue.retry(id, job.token as string, error(i));
    ids.push(id);
  }
  return ids;
}

/** Redis' clock in ms (TIME), the clock leases are measured on. */
export async function redisNow(r: RedisClient): Promise<number> {
  const [sec, usec] = await r.time();
  return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
}

/** Poll `check` every few ms until it returns true; fail after `timeoutMs`. */
export async function pollUntil(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Wait until Redis' clock has passed `ms` (a lease deadline), bounded. */
export function untilRedisTimePasses(r: RedisClient, ms: number, timeoutMs = 5_000): Promise<void> {
  return pollUntil(`Redis time > ${ms}`, async () => (await redisNow(r)) > ms, timeoutMs);
}

/** Call `queue.reap()` until it has reaped at least `n` jobs in all; returns the total. */
export async function reapAtLeast(queue: Queue, n = 1, timeoutMs = 5_000): Promise<number> {
  let total = 0;
  await pollUntil(
    `${n} reaped`,
    async () => {
      total += await queue.reap();
      return total >= n;
    },
    timeoutMs,
  );
  return total;
}

/**
 * The RingmasterError `call` rejects with; fails the test when it resolves or rejects with
 * anything else.
 */
export async function refusal(call: () => Promise<unknown>): Promise<RingmasterError> {
  const error = await call().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RingmasterError);
  return error as RingmasterError;
}
