/**
 * How low a job's Redis cost can go in a Lua design of this kind (the "Redis CPU per job ÷
 * a floor call ≤ 1.0"): Redis instructions of a floor call (`return 1`, 64 concurrent callers on
 * one connection, as the throughput section's floor) against those of a job through a *minimal*
 * fair claim and completion, measured on the same server build in one run. The minimal script is
 * not Ringmaster's: it is the least a script can do and still give each group a turn in rota
 * order, cap its in-flight jobs by a limit, lease the job and hand back its payload, with every
 * write batched per call except the one that cannot be (the pop from the job's own lane):
 *
 * - layout: `ring` list of serviceable groups; `lane:<g>` list of job ids; `jobs` hash id →
 *   payload; `gactive`/`glimit` hashes; `active` zset id → deadline; `leases` hash id → group.
 *   Hashes and sorted sets in their indexed encodings (the config below), as Ringmaster keeps its
 *   hot keys (includes/indexedEncoding.lua).
 * - per call: complete n (one HMGET of their groups, one ZREM, two HDELs, the groups' counts and
 *   limits read and written once, a group leaving saturation re-ringed when its lane holds a
 *   job), then claim m (pop up to m groups from the ring at once, one LPOP per job from its
 *   lane, counts written once, the groups still serviceable pushed back in one RPUSH, one ZADD,
 *   one HSET of the leases, one HMGET of the payloads).
 *
 * It leaves out what Ringmaster's contract adds to a job: the lease token (I5's check), attempts,
 * the queue's pause gate, delayed jobs, rate limits, weights, stats counters, watched-job events,
 * the completed retention (measure Ringmaster itself with bench/redisCost.ts). So its cost is a
 * lower bound for a job of the contract, not a design proposal.
 *
 *   npx tsx bench/redisBound.ts                 # callgrind: floor instructions per call, minimal per job
 *   npx tsx bench/redisBound.ts --plain         # wall-clock Redis CPU (INFO cpu) instead
 *   npx tsx bench/redisBound.ts --jobs=12000 --groups=1000 --batch=32 --callers=2
 *
 * Output: one line per measure (`--json` for JSON). Never touches 127.0.0.1:6379.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import {
  idleInstructionsPerMs,
  instructionsDuring,
  type Server,
  startServer,
} from './callgrind.js';
import { redisCpuUsec } from './redis.js';
import { scriptFlags, sleep } from './util.js';

interface Options {
  jobs: number;
  groups: number;
  limit: number;
  /** jobs claimed per call by each caller */
  batch: number;
  /** concurrent callers of the minimal script (batch × callers jobs in flight) */
  callers: number;
  /** floor calls measured */
  floorCalls: number;
  /** concurrent floor callers on one connection */
  floorConcurrency: number;
  plain: boolean;
  idleMs: number;
  json: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const flags = scriptFlags(argv, {
    values: [
      'jobs',
      'groups',
      'limit',
      'batch',
      'callers',
      'floor-calls',
      'floor-concurrency',
      'idle-ms',
    ],
    switches: ['plain', 'json'],
  });
  return {
    jobs: flags.whole('jobs', 6000, 1),
    groups: flags.whole('groups', 100, 1),
    limit: flags.whole('limit', 2, 1),
    batch: flags.whole('batch', 32, 1),
    callers: flags.whole('callers', 2, 1),
    floorCalls: flags.whole('floor-calls', 20000, 1),
    floorConcurrency: flags.whole('floor-concurrency', 64, 1),
    plain: flags.has('plain'),
    idleMs: flags.whole('idle-ms', 2000, 1),
    json: flags.has('json'),
  };
}

/** The minimal fair complete-and-claim (see the file's docstring). */
const MINIMAL = `
local ring, gactive, glimit, active, leases, jobs = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local lanePrefix = ARGV[1]
local n = tonumber(ARGV[4])
if n > 0 then
  local ids = {}
  for i = 1, n do ids[i] = ARGV[4 + i] end
  local groups = redis.call('HMGET', leases, unpack(ids))
  redis.call('ZREM', active, unpack(ids))
  redis.call('HDEL', leases, unpack(ids))
  --JOBHASH_COMPLETE
  local dec, order = {}, {}
  for i = 1, n do
    local g = groups[i]
    if g then
      if dec[g] == nil then dec[g] = 0; order[#order + 1] = g end
      dec[g] = dec[g] + 1
    end
  end
  if #order > 0 then
    local counts = redis.call('HMGET', gactive, unpack(order))
    local limits = redis.call('HMGET', glimit, unpack(order))
    local writes, back = {}, {}
    for j = 1, #order do
      local g = order[j]
      local was = tonumber(counts[j]) or 0
      local left = was - dec[g]
      writes[#writes + 1] = g
      writes[#writes + 1] = left
      local limit = tonumber(limits[j])
      if limit and was >= limit and left < limit and redis.call('EXISTS', lanePrefix .. g) == 1 then
        back[#back + 1] = g
      end
    end
    redis.call('HSET', gactive, unpack(writes))
    if #back > 0 then redis.call('RPUSH', ring, unpack(back)) end
  end
end
local m = tonumber(ARGV[5 + n])
local claimed, claimedGroups = {}, {}
while #claimed < m do
  local popped = redis.call('LPOP', ring, m - #claimed)
  if not popped then break end
  local counts = redis.call('HMGET', gactive, unpack(popped))
  local limits = redis.call('HMGET', glimit, unpack(popped))
  local served, servedLanes, writes = {}, {}, {}
  for j = 1, #popped do
    local g = popped[j]
    local lane = lanePrefix .. g
    local id = redis.call('LPOP', lane)
    if id then
      claimed[#claimed + 1] = id
      claimedGroups[#claimed] = g
      local c = (tonumber(counts[j]) or 0) + 1
      writes[#writes + 1] = g
      writes[#writes + 1] = c
      local limit = tonumber(limits[j])
      if not limit or c < limit then
        served[#served + 1] = g
        servedLanes[#servedLanes + 1] = lane
      end
    end
  end
  if #writes > 0 then redis.call('HSET', gactive, unpack(writes)) end
  if #served > 0 then
    local present = redis.call('EXISTS', unpack(servedLanes))
    if present == #served then
      redis.call('RPUSH', ring, unpack(served))
    elseif present > 0 then
      local back = {}
      for j = 1, #served do
        if redis.call('EXISTS', servedLanes[j]) == 1 then back[#back + 1] = served[j] end
      end
      if #back > 0 then redis.call('RPUSH', ring, unpack(back)) end
    end
  end
end
if #claimed == 0 then return { {}, {} } end
local deadline = tonumber(ARGV[2]) + tonumber(ARGV[3])
local z, h = {}, {}
for i = 1, #claimed do
  z[#z + 1] = deadline
  z[#z + 1] = claimed[i]
  h[#h + 1] = claimed[i]
  h[#h + 1] = claimedGroups[i]
end
redis.call('ZADD', active, unpack(z))
redis.call('HSET', leases, unpack(h))
--JOBHASH_CLAIM
`;

/** The minimal script with each job in a hash of its own, as Ringmaster keeps it. */
const MINIMAL_JOB_HASH = MINIMAL.replace(
  '--JOBHASH_COMPLETE',
  `local doomed = {}
  for i = 1, n do
    local key = 'job:' .. ids[i]
    if redis.call('HGET', key, 'token') == false then return redis.error_reply('no token') end
    doomed[i] = key
  end
  redis.call('DEL', unpack(doomed))`,
).replace(
  '--JOBHASH_CLAIM',
  `local payloads = {}
for i = 1, #claimed do
  local key = 'job:' .. claimed[i]
  local job = redis.call('HMGET', key, 'payload', 'attempts')
  payloads[i] = job[1]
  redis.call('HSET', key, 'state', 'active', 'token', 't' .. i, 'attempts', (tonumber(job[2]) or 0) + 1, 'leaseUntil', deadline)
end
return { claimed, payloads }`,
);

const MINIMAL_PACKED = MINIMAL.replace(
  '--JOBHASH_COMPLETE',
  "redis.call('HDEL', jobs, unpack(ids))",
).replace('--JOBHASH_CLAIM', "return { claimed, redis.call('HMGET', jobs, unpack(claimed)) }");

const KEYS = ['ring', 'gactive', 'glimit', 'active', 'leases', 'jobs'];
const LANE_PREFIX = 'lane:';

/** One measure: instructions (callgrind) or Redis CPU µs (plain) per unit. */
interface Measure {
  name: 'floor call' | `minimal job, ${Variant}`;
  units: number;
  instructionsPerUnit: number | null;
  redisCpuUsecPerUnit: number;
  wallMs: number;
}

async function measured(
  server: Server,
  dir: string,
  admin: Redis,
  o: Options,
  name: Measure['name'],
  units: number,
  work: () => Promise<void>,
): Promise<Measure> {
  const idlePerMs = o.plain ? 0 : await idleInstructionsPerMs(server, dir, o.idleMs);
  const cpuBefore = await redisCpuUsec(admin);
  const { instructions, ms: wallMs } = await instructionsDuring(server, dir, work, !o.plain);
  const cpuAfter = await redisCpuUsec(admin);
  return {
    name,
    units,
    instructionsPerUnit:
      instructions === null ? null : Math.round((instructions - idlePerMs * wallMs) / units),
    redisCpuUsecPerUnit: (cpuAfter - cpuBefore) / units,
    wallMs,
  };
}

async function floor(conn: Redis, o: Options): Promise<void> {
  const sha = (await conn.script('LOAD', 'return 1')) as string;
  let left = o.floorCalls;
  await Promise.all(
    Array.from({ length: o.floorConcurrency }, async () => {
      while (left > 0) {
        left--;
        await conn.evalsha(sha, 0);
      }
    }),
  );
}

/** The variants measured: each job's payload in one per-queue hash, or in a hash of its own. */
type Variant = 'packed' | 'job hash';
const SCRIPTS: Record<Variant, string> = { packed: MINIMAL_PACKED, 'job hash': MINIMAL_JOB_HASH };

/**
 * Jobs round robin over the groups, every group on the ring with the limit. The hot keys are
 * put in their indexed encodings by one member too long for a listpack, which stays (Redis never
 * converts back while the key lives), as includes/indexedEncoding.lua does for Ringmaster's.
 */
async function fill(conn: Redis, o: Options, variant: Variant): Promise<void> {
  await conn.flushall('SYNC');
  const long = 'x'.repeat(100);
  const pipeline = conn.pipeline();
  pipeline.hset('gactive', long, 0);
  pipeline.hset('glimit', long, 0);
  pipeline.hset('leases', long, long);
  pipeline.zadd('active', '+inf', long);
  for (let g = 0; g < o.groups; g++) pipeline.hset('glimit', `g${g}`, o.limit);
  for (let i = 1; i <= o.jobs; i++) {
    const payload = JSON.stringify({ i });
    if (variant === 'packed') pipeline.hset('jobs', String(i), payload);
    else
      pipeline.hset(
        `job:${i}`,
        'payload',
        payload,
        'group',
        `g${i % o.groups}`,
        'attempts',
        0,
        'state',
        'pending',
      );
    pipeline.rpush(`${LANE_PREFIX}g${i % o.groups}`, String(i));
  }
  pipeline.rpush('ring', ...Array.from({ length: o.groups }, (_, g) => `g${g}`));
  await pipeline.exec();
}

async function drainMinimal(conn: Redis, o: Options, variant: Variant): Promise<void> {
  const sha = (await conn.script('LOAD', SCRIPTS[variant])) as string;
  let completed = 0;
  await Promise.all(
    Array.from({ length: o.callers }, async () => {
      let held: string[] = [];
      for (;;) {
        const [claimed] = (await conn.evalsha(
          sha,
          KEYS.length,
          ...KEYS,
          LANE_PREFIX,
          Date.now(),
          30_000,
          held.length,
          ...held,
          o.batch,
        )) as [string[], (string | null)[]];
        completed += held.length;
        held = claimed;
        if (claimed.length === 0) {
          if (completed >= o.jobs) return;
          await sleep(1); // the other caller holds the rest; their completions re-ring groups
        }
      }
    }),
  );
  const left = (await conn.dbsize()) - 4 - (await conn.exists('ring'));
  if (left !== 0) throw new Error(`the ${variant} drain left ${left} keys besides the hot ones`);
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'redis-bound-'));
  const measures: Measure[] = [];
  try {
    const server = await startServer(o.plain, dir);
    const admin = new Redis({ port: server.port, host: '127.0.0.1' });
    const conn = new Redis({ port: server.port, host: '127.0.0.1', maxRetriesPerRequest: null });
    try {
      measures.push(
        await measured(server, dir, admin, o, 'floor call', o.floorCalls, () => floor(conn, o)),
      );
      for (const variant of ['packed', 'job hash'] as const) {
        await fill(conn, o, variant);
        measures.push(
          await measured(server, dir, admin, o, `minimal job, ${variant}`, o.jobs, () =>
            drainMinimal(conn, o, variant),
          ),
        );
      }
    } finally {
      conn.disconnect();
      admin.disconnect();
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (o.json) {
    process.stdout.write(`${JSON.stringify({ options: o, measures }, null, 2)}\n`);
    return;
  }
  for (const m of measures) {
    process.stdout.write(
      `${m.name.padEnd(12)} ${m.units} units: ` +
        `${m.instructionsPerUnit === null ? '' : `instructions/unit ${m.instructionsPerUnit.toLocaleString('en-US')}  `}` +
        `Redis CPU µs/unit ${m.redisCpuUsecPerUnit.toFixed(2)}  wall ${(m.wallMs / 1000).toFixed(1)} s\n`,
    );
  }
  // Wall-clock CPU is the issue's measure: a floor call's cost is mostly system time (its read
  // and write), which callgrind does not count, so instruction ratios flatter the floor.
  const [f, ...jobs] = measures as [Measure, ...Measure[]];
  for (const j of jobs) {
    process.stdout.write(
      `${j.name} ÷ floor call, Redis CPU: ${(j.redisCpuUsecPerUnit / f.redisCpuUsecPerUnit).toFixed(2)}\n`,
    );
  }
}

await main();
