/**
 * Delayed jobs written straight to Redis by the key layout (DESIGN.md §2: a job hash with state
 * `delayed` and `runAt`, `P:{Q}:delayed` and the group's delayed index scored by runAt, the
 * `delayed` total; the payload in `payloads`, the job layout; the queue's `delayedAt` lowered), as
 * a delayed enqueue leaves them, so
 * the claim path's promotion can be tested whatever the enqueue script does. One EVAL per batch of
 * jobs, so a job is never seen half-placed.
 */
import type { Queue } from '../../src/lanes/index.js';

const PUT = `
local jobKeyOf = function(id) return ARGV[1] .. 'job:' .. id end
local group, runAt, n = ARGV[2], ARGV[3], tonumber(ARGV[4])
local ids = {}
for i = 1, n do
  local id = tostring(redis.call('INCR', KEYS[1]))
  redis.call('HSET', jobKeyOf(id), 'group', group, 'state', 'delayed', 'attempts', '0',
    'maxAttempts', '3', 'enqueuedAt', runAt, 'runAt', runAt)
  redis.call('HSET', ARGV[1] .. 'payloads', id, '{"n":' .. id .. '}')
  redis.call('ZADD', KEYS[2], runAt, id)
  redis.call('ZADD', KEYS[3], runAt, id)
  ids[#ids + 1] = id
end
redis.call('HSET', ARGV[1] .. 'settings', 'layout', '2')
-- The queue's "next due at" lowered as an enqueue lowers it (DESIGN.md §3, "Next due at").
local bound = redis.call('HGET', ARGV[1] .. 'settings', 'delayedAt')
if bound == 'none' or (tonumber(bound) and tonumber(runAt) < tonumber(bound)) then
  redis.call('HSET', ARGV[1] .. 'settings', 'delayedAt', runAt)
end
redis.call('HINCRBY', KEYS[4], 'delayed', n)
redis.call('HINCRBY', KEYS[4], 'enqueued', n)
redis.call('ZADD', KEYS[5], 0, group)
local t = redis.call('TIME')
redis.call('ZADD', ARGV[1] .. 'gseen', t[1] * 1000 + math.floor(t[2] / 1000), group)
return ids`;

/**
 * `n` new delayed jobs of `group` (ids from `seq`, payload `{ n: id }`), each due at `runAt`
 * (ms, Redis clock). Returns their ids, ascending.
 */
export async function putDelayed(q: Queue, group: string, runAt: number, n = 1): Promise<string[]> {
  const k = q.keys;
  return (await q.redis.eval(
    PUT,
    5,
    k.seq,
    k.delayed,
    k.groupDelayed(group),
    k.stats,
    k.groups,
    k.base,
    group,
    String(runAt),
    String(n),
  )) as string[];
}
