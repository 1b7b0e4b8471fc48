/**
 * Jobs in the places of the job states beyond pending and active (DESIGN.md §2: DELAYED, DEAD with
 * its group's index, retained COMPLETED), written straight to Redis by the key layout (the job
 * layout: the payload in `payloads`, no `score`, the queue's `layout` mark), at chosen scores: the
 * tests of the operator actions and reads need many such jobs fast, with times they choose (equal
 * ones too), which the engine's own paths (a delayed enqueue, a retry at maxAttempts, a completion
 * under retention) cannot give. One EVAL per job, so a job is never seen half-placed; the stats
 * move as the engine's own scripts move them (`enqueued` +1, and the `delayed` total for a
 * delayed job).
 */
import type { JobError, Queue } from '../../src/lanes/index.js';
import { queuesKey } from '../../src/lanes/keys.js';

/** Where {@link placeJob} puts a job. */
export type Place = 'delayed' | 'dead' | 'completed';

/** What a placed job holds besides its group. */
export interface PlaceOptions {
  /** Its score in the place's indexes (ms): run-at, died-at or completed-at. Default: now. */
  readonly at?: number;
  readonly attempts?: number;
  readonly maxAttempts?: number;
  readonly lastError?: string;
  /** Its error history, newest first. */
  readonly errors?: readonly JobError[];
  readonly payload?: unknown;
}

const PLACE = `
local jobKey, indexKey, groupIndexKey, errorsKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local seqKey, statsKey, groupsKey, queuesKey = KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local payloadsKey, settingsKey, seenKey = KEYS[9], KEYS[10], KEYS[11]
local place, group, at, attempts, maxAttempts, lastError, payload, queue =
  ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local id = redis.call('GET', seqKey)
redis.call('HSET', jobKey, 'group', group, 'state', place, 'attempts', attempts,
  'maxAttempts', maxAttempts, 'enqueuedAt', at)
redis.call('HSET', settingsKey, 'layout', '2')
if place == 'delayed' then
  redis.call('HSET', jobKey, 'runAt', at)
  redis.call('HINCRBY', statsKey, 'delayed', 1)
else
  redis.call('HSET', jobKey, 'finishedAt', at)
end
if lastError ~= '' then redis.call('HSET', jobKey, 'lastError', lastError) end
if payload ~= '' then redis.call('HSET', payloadsKey, id, payload) end
for i = 9, #ARGV do redis.call('RPUSH', errorsKey, ARGV[i]) end
redis.call('ZADD', indexKey, at, id)
redis.call('ZADD', groupIndexKey, at, id)
redis.call('HINCRBY', statsKey, 'enqueued', 1)
redis.call('ZADD', groupsKey, 0, group)
redis.call('ZADD', seenKey, at, group)
redis.call('SADD', queuesKey, queue)
return id`;

/** Redis' clock in ms. */
async function nowOf(q: Queue): Promise<number> {
  const [sec, usec] = await q.redis.time();
  return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
}

/**
 * A new job of `group` in `place` (a fresh id from `seq`, as enqueue mints them); returns its id.
 * Its indexes are the queue's and the group's of that place, both scored `at`.
 */
export async function placeJob(
  q: Queue,
  group: string,
  place: Place,
  options: PlaceOptions = {},
): Promise<string> {
  const k = q.keys;
  const id = String(await q.redis.incr(k.seq));
  const at = options.at ?? (await nowOf(q));
  const [index, groupIndex] =
    place === 'delayed'
      ? [k.delayed, k.groupDelayed(group)]
      : place === 'dead'
        ? [k.dead, k.groupDead(group)]
        : [k.completed, k.groupCompleted(group)];
  // The prefix is what the queue's keys start with, up to ':{'.
  const prefix = k.base.slice(0, k.base.indexOf(':{'));
  // The id is read back from seq inside the script: INCR above reserved it.
  await q.redis.eval(
    PLACE,
    11,
    k.job(id),
    index,
    groupIndex,
    k.errors(id),
    k.seq,
    k.stats,
    k.groups,
    queuesKey(prefix),
    k.payloads,
    k.settings,
    k.seen,
    place,
    group,
    at,
    options.attempts ?? { delayed: 0, dead: 3, completed: 1 }[place],
    options.maxAttempts ?? 3,
    options.lastError ?? '',
    options.payload === undefined ? '' : JSON.stringify(options.payload),
    q.name,
    ...(options.errors ?? []).map((e) => JSON.stringify(e)),
  );
  return id;
}

/** Several jobs of one group in one place, each `step` ms after the previous (default 1). */
export async function placeJobs(
  q: Queue,
  group: string,
  place: Place,
  n: number,
  options: PlaceOptions & { step?: number } = {},
): Promise<string[]> {
  const start = options.at ?? (await nowOf(q));
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push(await placeJob(q, group, place, { ...options, at: start + i * (options.step ?? 1) }));
  }
  return ids;
}

/** Every key of the queue's that holds job `id` of `group` (its hash, its error list) or names it. */
export async function placesOf(q: Queue, group: string, id: string): Promise<string[]> {
  const k = q.keys;
  const zsets: [string, string][] = [
    ['lane', k.lane(group)],
    ['delayed', k.delayed],
    ['groupDelayed', k.groupDelayed(group)],
    ['active', k.active],
    ['dead', k.dead],
    ['groupDead', k.groupDead(group)],
    ['completed', k.completed],
    ['groupCompleted', k.groupCompleted(group)],
  ];
  const found: string[] = [];
  for (const [name, key] of zsets) {
    if ((await q.redis.zscore(key, id)) !== null) found.push(name);
  }
  if ((await q.redis.exists(k.job(id))) === 1) found.push('hash');
  if ((await q.redis.exists(k.errors(id))) === 1) found.push('errors');
  return found;
}
