/**
 * Keyspace dumps as JSON, for fixtures of queues an older engine wrote (`test/fixtures/layout1`,
 * made by its `make.ts`): the dump's types, its restore into a test's Redis (under a queue name
 * of the test's own), and the layout-1 fixture.
 */
import { readFile } from 'node:fs/promises';
import type { Redis } from 'ioredis';

/** One key as dumped: its value by type, and its PTTL (ms) when it expires. */
export type DumpedKey = { readonly key: string; readonly pttl?: number } & (
  | { readonly type: 'string'; readonly value: string }
  /** field → value */
  | { readonly type: 'hash'; readonly value: Readonly<Record<string, string>> }
  /** head first */
  | { readonly type: 'list'; readonly value: readonly string[] }
  /** sorted */
  | { readonly type: 'set'; readonly value: readonly string[] }
  /** [member, score as Redis writes it], by score */
  | { readonly type: 'zset'; readonly value: readonly (readonly [string, string])[] }
  /** [entry id, [field, value, …]], oldest first */
  | {
      readonly type: 'stream';
      readonly value: readonly (readonly [string, readonly string[]])[];
    }
);

/** A job left leased (ACTIVE) in a fixture: complete it with its token. */
export interface InFlightJob {
  readonly id: string;
  readonly token: string;
  readonly group: string;
}

/** What a fixture's job should read as: its group, state and the JSON value enqueued. */
export interface ExpectedJob {
  readonly group: string;
  /** PENDING, DELAYED, ACTIVE, COMPLETED or DEAD, as the engine that wrote it stored it. */
  readonly state: string;
  /** The JSON value given to enqueue (null: none given, no payload stored). */
  readonly payload: unknown;
  /** What is particular about it, if anything. */
  readonly note?: string;
}

/** A dumped keyspace holding one queue, with what its maker recorded about the queue's jobs. */
export interface KeyDump {
  /** Which engine wrote the keys. */
  readonly madeBy: string;
  /** The queue's name in the keys. */
  readonly queue: string;
  readonly inFlight: readonly InFlightJob[];
  /** job id → what it should read as */
  readonly expected: Readonly<Record<string, ExpectedJob>>;
  /** Every key of the Redis it was made in, sorted by name. */
  readonly keys: readonly DumpedKey[];
}

/**
 * `keys` as a dump holds them, sorted by name: each one's type, value (hash fields sorted, set
 * members sorted, zset pairs by score with Redis' score text, stream entries oldest first) and
 * PTTL when it expires. A key that does not exist is left out.
 * @throws Error for a key of a type a dump does not hold
 */
export async function dumpKeys(redis: Redis, keys: readonly string[]): Promise<DumpedKey[]> {
  const out: DumpedKey[] = [];
  for (const key of [...keys].sort()) {
    const [type, pttl] = await Promise.all([redis.type(key), redis.pttl(key)]);
    const expiry = pttl > 0 ? { pttl } : {};
    switch (type) {
      case 'none':
        break;
      case 'string':
        out.push({ key, type, value: (await redis.get(key)) ?? '', ...expiry });
        break;
      case 'hash': {
        const all = await redis.hgetall(key);
        const fields = Object.keys(all).sort();
        out.push({
          key,
          type,
          value: Object.fromEntries(fields.map((f) => [f, all[f] ?? ''])),
          ...expiry,
        });
        break;
      }
      case 'list':
        out.push({ key, type, value: await redis.lrange(key, 0, -1), ...expiry });
        break;
      case 'set':
        out.push({ key, type, value: (await redis.smembers(key)).sort(), ...expiry });
        break;
      case 'zset': {
        const flat = await redis.zrange(key, 0, -1, 'WITHSCORES');
        const pairs: [string, string][] = [];
        for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i] ?? '', flat[i + 1] ?? '']);
        out.push({ key, type, value: pairs, ...expiry });
        break;
      }
      case 'stream':
        out.push({ key, type, value: await redis.xrange(key, '-', '+'), ...expiry });
        break;
      default:
        throw new Error(`key ${key} has type ${type}, which a dump does not hold`);
    }
  }
  return out;
}

/**
 * A key's new name, and optionally a set member's (`member(key, member)`, with the key's dumped
 * name): what {@link restoreKeys} writes in place of the dump's.
 */
export interface KeyRename {
  (key: string): string;
  member?: (key: string, member: string) => string;
}

/**
 * Renames queue `from` to `to` under `prefix`: `P:{from}:…` becomes `P:{to}:…` (every key of
 * the queue: the hash tag is the queue name), and `from` as a member of `P:queues` becomes `to`.
 * Other keys and members are kept.
 */
export function queueRename(from: string, to: string, prefix = 'emq'): KeyRename {
  const base = `${prefix}:{${from}}:`;
  const registry = `${prefix}:queues`;
  const rename: KeyRename = (key) =>
    key.startsWith(base) ? `${prefix}:{${to}}:${key.slice(base.length)}` : key;
  rename.member = (key, member) => (key === registry && member === from ? to : member);
  return rename;
}

/**
 * Write every key of `dump` into `redis` as it was dumped (under `rename`'s names): hash by
 * HSET, list by RPUSH, set by SADD, zset by ZADD with the dumped score text, string by SET,
 * stream by XADD with the dumped entry ids; PEXPIRE for a dumped PTTL. A key already there is
 * deleted first, so it holds the dump's value and nothing else, but for a set, which is added
 * to: `P:queues` keeps the other queues' names. One MULTI, applied at once.
 */
export async function restoreKeys(
  redis: Redis,
  dump: Pick<KeyDump, 'keys'>,
  rename: KeyRename = (key) => key,
): Promise<void> {
  const multi = redis.multi();
  for (const entry of dump.keys) {
    const key = rename(entry.key);
    switch (entry.type) {
      case 'string':
        multi.del(key).set(key, entry.value);
        break;
      case 'hash':
        multi.del(key).hset(key, entry.value);
        break;
      case 'list':
        multi.del(key);
        if (entry.value.length > 0) multi.rpush(key, ...entry.value);
        break;
      case 'set': {
        const members = entry.value.map((m) => rename.member?.(entry.key, m) ?? m);
        if (members.length > 0) multi.sadd(key, ...members);
        break;
      }
      case 'zset':
        multi.del(key);
        if (entry.value.length > 0) {
          multi.zadd(key, ...entry.value.flatMap(([member, score]) => [score, member]));
        }
        break;
      case 'stream':
        multi.del(key);
        for (const [id, fields] of entry.value) multi.xadd(key, id, ...fields);
        break;
    }
    if (entry.pttl !== undefined) multi.pexpire(key, entry.pttl);
  }
  const replies = (await multi.exec()) ?? [];
  const failed = replies.find(([error]) => error !== null);
  if (failed) throw failed[0];
}

/** The layout-1 fixture: queue `legacy` as the engine of job layout 1 left it (its make.ts). */
export async function loadLayout1Fixture(): Promise<KeyDump> {
  const file = new URL('../fixtures/layout1/queue.json', import.meta.url);
  return JSON.parse(await readFile(file, 'utf8')) as KeyDump;
}
