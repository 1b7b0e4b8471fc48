/**
 * The benchmark's private Redis and what it reads from it.
 *
 * One `redis-server` child per run, on a free loopback port (never 6379), `appendonly no` and no
 * RDB snapshots, so no disk work lands in the middle of a measurement. Every section starts from
 * {@link fresh}: an empty keyspace, keyspace notifications off, counters reset.
 *
 * Redis 7 counts the commands a Lua script runs in `INFO commandstats` too (`cmdstat_hget` grows
 * when a script calls HGET), so the calls a client *sends* are counted in the client instead
 * ({@link countCommands}); commandstats gives the script cost (`cmdstat_fcall`, or `cmdstat_evalsha`) and the total
 * work Redis did.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { type RedisProcess, startRedisServer } from '../src/server/redisProcess/index.js';
import { now } from './util.js';

/** Connections the benchmark itself opens carry this name, so CLIENT LIST can tell them apart. */
export const BENCH_CLIENT = 'bench';

export interface BenchRedis {
  readonly url: string;
  readonly process: RedisProcess;
  /** A new connection (named {@link BENCH_CLIENT} unless `options.connectionName` says else). */
  connect(options?: RedisOptions): Redis;
  /** The control connection: INFO, CONFIG, FLUSHALL. */
  readonly admin: Redis;
  /** Close every connection made here, then stop Redis. */
  stop(): Promise<void>;
}

export async function startBenchRedis(): Promise<BenchRedis> {
  const process = await startRedisServer({ appendOnly: false });
  const connections = new Set<Redis>();
  const connect = (options: RedisOptions = {}): Redis => {
    const redis = new Redis(process.url, {
      connectionName: BENCH_CLIENT,
      maxRetriesPerRequest: null,
      ...options,
    });
    redis.on('error', () => {});
    connections.add(redis);
    return redis;
  };
  const admin = connect();
  return {
    url: process.url,
    process,
    connect,
    admin,
    async stop() {
      for (const redis of connections) redis.disconnect();
      await process.stop();
    },
  };
}

/** Empty keyspace, keyspace notifications off, commandstats and INFO counters reset. */
export async function fresh(admin: Redis): Promise<void> {
  await admin.flushall('SYNC');
  await admin.config('SET', 'notify-keyspace-events', '');
  await admin.config('RESETSTAT');
}

/** One INFO section as `field → value` (numbers where they parse). */
export async function info(admin: Redis, section: string): Promise<Record<string, string>> {
  const text = await admin.info(section);
  const fields: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) fields[line.slice(0, at)] = line.slice(at + 1);
  }
  return fields;
}

/** redis-server CPU (user + sys) so far, µs, from INFO cpu. */
export async function redisCpuUsec(admin: Redis): Promise<number> {
  const cpu = await info(admin, 'cpu');
  return (Number(cpu.used_cpu_user) + Number(cpu.used_cpu_sys)) * 1e6;
}

export async function usedMemory(admin: Redis): Promise<number> {
  return Number((await info(admin, 'memory')).used_memory);
}

export interface CommandStat {
  calls: number;
  usec: number;
}

/** `INFO commandstats` as command → { calls, usec } (subcommands as `config|resetstat`). */
export async function commandStats(admin: Redis): Promise<Map<string, CommandStat>> {
  const stats = new Map<string, CommandStat>();
  for (const [key, value] of Object.entries(await info(admin, 'commandstats'))) {
    if (!key.startsWith('cmdstat_')) continue;
    const calls = /calls=(\d+)/.exec(value)?.[1];
    const usec = /usec=(\d+)/.exec(value)?.[1];
    stats.set(key.slice('cmdstat_'.length), { calls: Number(calls), usec: Number(usec) });
  }
  return stats;
}

/** Commands the benchmark's own bookkeeping sends; left out of every count. */
const BOOKKEEPING = /^(info|config|client|flushall|memory|ping|select|hello)\b/;

/** Whether `command` (a commandstats name) is the benchmark's bookkeeping, not the work's. */
export const isBookkeeping = (command: string): boolean => BOOKKEEPING.test(command);

/** Calls summed over every command but the benchmark's bookkeeping (INFO, CONFIG, CLIENT, …). */
export function totalCalls(stats: Map<string, CommandStat>): number {
  let total = 0;
  for (const [name, stat] of stats) if (!isBookkeeping(name)) total += stat.calls;
  return total;
}

/** The commands that run a script: FCALL (Redis ≥ 7.0), else EVALSHA and EVAL. */
export const SCRIPT_COMMANDS = ['fcall', 'evalsha', 'eval'];

/**
 * Script executions in a commandstats snapshot: FCALL, EVALSHA and EVAL (without FCALL, ioredis
 * sends a script's first call on each connection as EVAL with its body, then EVALSHA).
 */
export function scriptCalls(stats: Map<string, CommandStat>): CommandStat {
  const total = { calls: 0, usec: 0 };
  for (const name of SCRIPT_COMMANDS) {
    const stat = stats.get(name);
    total.calls += stat?.calls ?? 0;
    total.usec += stat?.usec ?? 0;
  }
  return total;
}

/** Difference of two commandstats snapshots (after − before), per command. */
export function statsDelta(
  before: Map<string, CommandStat>,
  after: Map<string, CommandStat>,
): Map<string, CommandStat> {
  const delta = new Map<string, CommandStat>();
  for (const [name, stat] of after) {
    const base = before.get(name) ?? { calls: 0, usec: 0 };
    delta.set(name, { calls: stat.calls - base.calls, usec: stat.usec - base.usec });
  }
  return delta;
}

/** A counter of the commands a client sends (including each command of a MULTI or pipeline). */
export interface CommandCounter {
  readonly count: number;
  readonly byName: ReadonlyMap<string, number>;
  reset(): void;
}

/**
 * Count every command `redis` sends from now on — and every connection later made from it
 * with `duplicate()` (the Worker's blocking connection is one). ioredis sends each command,
 * pipelined or not, through `sendCommand`, so wrapping it on the instance sees them all.
 */
export function countCommands(redis: Redis): CommandCounter {
  let count = 0;
  const byName = new Map<string, number>();
  const instrument = (client: Redis) => {
    const send = client.sendCommand.bind(client);
    client.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
      count++;
      byName.set(command.name, (byName.get(command.name) ?? 0) + 1);
      return (send as (...args: unknown[]) => unknown)(command, ...rest);
    }) as Redis['sendCommand'];
    const duplicate = client.duplicate.bind(client);
    client.duplicate = ((...args: Parameters<Redis['duplicate']>) => {
      const copy = duplicate(...args);
      instrument(copy);
      return copy;
    }) as Redis['duplicate'];
  };
  instrument(redis);
  return {
    get count() {
      return count;
    },
    byName,
    reset() {
      count = 0;
      byName.clear();
    },
  };
}

/** Server-side connection count, without the benchmark's own ({@link BENCH_CLIENT}). */
export async function foreignClients(admin: Redis): Promise<number> {
  const list = (await admin.client('LIST')) as string;
  return list
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => !new RegExp(`\\bname=${BENCH_CLIENT}\\b`).test(line)).length;
}

/** What {@link measured} read of one run: its wall time (s) and, per job, its costs. */
export interface Measured {
  seconds: number;
  /** Script calls (EVALSHA + EVAL) per job (commandstats). */
  scriptsPerJob: number;
  /** Commands per job but the bookkeeping (commandstats; {@link totalCalls}). */
  redisCommandsPerJob: number;
  /** Redis' used_cpu_user + used_cpu_sys per job (µs). */
  redisCpuUsecPerJob: number;
  /** This process' user + system CPU per job (µs). */
  clientCpuUsecPerJob: number;
}

/**
 * Run `run` (which handles `jobs` jobs) between two reads of commandstats (after a CONFIG
 * RESETSTAT), Redis CPU and this process' CPU; its costs per job.
 */
export async function measured(
  redis: BenchRedis,
  jobs: number,
  run: () => Promise<void>,
): Promise<Measured> {
  await redis.admin.config('RESETSTAT');
  const before = await commandStats(redis.admin);
  const redisCpu0 = await redisCpuUsec(redis.admin);
  const cpu0 = process.cpuUsage();
  const t0 = now();
  await run();
  const seconds = (now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const redisCpu = (await redisCpuUsec(redis.admin)) - redisCpu0;
  const delta = statsDelta(before, await commandStats(redis.admin));
  return {
    seconds,
    scriptsPerJob: scriptCalls(delta).calls / jobs,
    redisCommandsPerJob: totalCalls(delta) / jobs,
    redisCpuUsecPerJob: redisCpu / jobs,
    clientCpuUsecPerJob: (cpu.user + cpu.system) / jobs,
  };
}
