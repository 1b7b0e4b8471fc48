/**
 * `Queue`'s reads, O(1) or O(page), registering nothing: history, groups, the snapshot, the
 * ring, counts, state, retention, stats, metrics and jobs (DESIGN.md §2 and §4). The contracts
 * are on `Queue`'s methods (queue.ts), which delegate here.
 */
import type { ChainableCommander } from 'ioredis';
import { Defaults, WORKER_LAPSE_BEATS } from '../defaults.js';
import { badInput } from '../errors.js';
import type { SnapshotReply } from '../scripts/commands.js';
import type {
  GroupInfo,
  GroupPage,
  GroupRanking,
  Job,
  JobError,
  JobLogPage,
  JobPage,
  JobState,
  QueueCap,
  QueueCounts,
  QueueRetention,
  QueueSnapshot,
  QueueState,
  QueueStats,
  RotaEntry,
  ThroughputPoint,
  TopGroup,
  WorkerInfo,
} from '../types.js';
import * as validate from '../validate.js';
import type { QueueCore } from './core.js';
import { type HistoryPage, readGroupHistory, readHistory } from './history.js';
import { decodeJob, decodeJobPage, decodeLogs } from './jobs.js';
import { rotaEntries } from './levels.js';
import { decodeMetrics, METRICS_HEAD_STEPS, type QueueMetrics } from './metrics.js';
import { estimateStart, type JobPlace, PLACE_SAMPLES, queueRate, serviceTimes } from './place.js';
import {
  GROUP_FIELD_COUNT,
  groupInfo,
  parseCount,
  parseLimit,
  queueCap,
  retentionFrom,
  statsFrom,
} from './state.js';

/**
 * The replies of a MULTI, in order. A command's error comes back in place, not as a rejection
 * (a key of the wrong type): the first one is thrown.
 */
async function values(multi: ChainableCommander): Promise<unknown[]> {
  return ((await multi.exec()) ?? []).map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}

// The names a page's options may hold besides their own (`validate.options` refuses others).
const PAGE = { first: true, after: true } as const;

/** A failed attempt's entries as `retry-12.lua` and `reap-12.lua` push them (JSON text). */
function decodeErrors(entries: readonly string[]): JobError[] {
  const errors: JobError[] = [];
  for (const entry of entries) {
    try {
      const e = JSON.parse(entry) as Record<string, unknown>;
      errors.push({
        attempt: typeof e.attempt === 'number' ? e.attempt : 0,
        at: typeof e.at === 'number' ? e.at : 0,
        message: typeof e.message === 'string' ? e.message : '',
        stack: typeof e.stack === 'string' ? e.stack : null,
      });
    } catch {
      // Another writer's entry that is not JSON: not one of ours, skipped.
    }
  }
  return errors;
}

/** The options of {@link Queue.history}. */
export interface HistoryOptions {
  group?: string | undefined;
  first?: number | undefined;
  after?: string | null | undefined;
}

/** The options of {@link Queue.groups}. */
export interface GroupsOptions {
  first?: number | undefined;
  after?: string | null | undefined;
  prefix?: string | undefined;
}

/** The options of {@link Queue.snapshot}. */
export interface SnapshotOptions {
  first?: number | undefined;
  after?: string | null | undefined;
  prefix?: string | undefined;
  ids?: readonly string[] | undefined;
  ringFirst?: number | null | undefined;
}

export class Reads {
  constructor(private readonly core: QueueCore) {}

  async history(options: HistoryOptions = {}): Promise<HistoryPage> {
    const opts = validate.options('options', options, { group: true, ...PAGE });
    if (opts.group === undefined)
      return readHistory(this.core.redis, this.core.keys.history, this.core.name, opts);
    const group = validate.groupId(opts.group, 'group');
    return readGroupHistory(this.core.redis, this.core.keys.history, this.core.name, group, opts);
  }

  async group(id: string): Promise<GroupInfo> {
    const g = validate.groupId(id, 'id');
    const [info] = await this.readGroups([g]);
    return info as GroupInfo;
  }

  async groups(options: GroupsOptions = {}): Promise<GroupPage> {
    options = validate.options('options', options, { prefix: true, ...PAGE });
    const first = validate.pageSize(options.first ?? Defaults.pageSize);
    const bytes = (text: string) => Buffer.from(text, 'utf8');
    const prefixText =
      options.prefix === undefined ? null : validate.groupId(options.prefix, 'prefix');
    const listing = ['groups', this.core.name, prefixText] as const;
    const after =
      options.after == null ? null : bytes(validate.cursor.decode(options.after, listing));
    const prefix = prefixText === null ? null : bytes(prefixText);
    const lowest = prefix === null ? bytes('-') : Buffer.concat([bytes('['), prefix]);
    const highest =
      prefix === null ? bytes('+') : Buffer.concat([bytes('['), prefix, Buffer.from([0xff])]);
    // Resume after the cursor; a cursor before the prefix's range starts at the range.
    const min =
      after !== null && (prefix === null || Buffer.compare(after, prefix) >= 0)
        ? Buffer.concat([bytes('('), after])
        : lowest;
    const [ids, totalCount] = await Promise.all([
      this.core.redis.zrangebylex(this.core.keys.groups, min, highest, 'LIMIT', 0, first + 1),
      prefix === null
        ? this.core.redis.zcard(this.core.keys.groups)
        : this.core.redis.zlexcount(this.core.keys.groups, lowest, highest),
    ]);
    const pageIds = ids.slice(0, first);
    const groups = await this.readGroups(pageIds);
    const cursors = pageIds.map(validate.cursor.encoder(listing));
    return {
      groups,
      cursors,
      hasNextPage: ids.length > first,
      endCursor: cursors.at(-1) ?? null,
      totalCount,
    };
  }

  async snapshot(options: SnapshotOptions = {}): Promise<QueueSnapshot> {
    options = validate.options('options', options, {
      prefix: true,
      ids: true,
      ringFirst: true,
      ...PAGE,
    });
    const ringFirst = options.ringFirst ?? -1;
    if (options.ringFirst != null && !(Number.isSafeInteger(ringFirst) && ringFirst >= 0)) {
      throw badInput('ringFirst', `must be an integer of 0 or more, got ${String(ringFirst)}`);
    }
    const first = validate.pageSize(options.first ?? Defaults.pageSize);
    const prefix = options.prefix === undefined ? null : validate.groupId(options.prefix, 'prefix');
    // The same listing as `groups` with this prefix: their cursors go from one to the other.
    const listing = ['groups', this.core.name, prefix] as const;
    const after = options.after == null ? null : validate.cursor.decode(options.after, listing);
    const ids = options.ids ?? [];
    if (!Array.isArray(ids)) throw badInput('ids', 'must be an array of group ids');
    if (ids.length > validate.Limits.maxPicked) {
      throw badInput('ids', `may name at most ${validate.Limits.maxPicked} groups`);
    }
    const picked = Array.from(ids, (id) => validate.groupId(id, 'ids'));
    // Resume after the cursor; a cursor before the prefix's range starts at the range (as
    // `groups` does; compared as bytes, the order Redis keeps).
    const bytes = (text: string) => Buffer.from(text, 'utf8');
    const min =
      after !== null && (prefix === null || Buffer.compare(bytes(after), bytes(prefix)) >= 0)
        ? `(${after}`
        : prefix === null
          ? '-'
          : `[${prefix}`;
    const [
      at,
      ring,
      total,
      ids1,
      pageFields,
      pickedFields,
      cards,
      flatStats,
      queuePaused,
      size,
      ringLevels,
    ] = (await this.core.commands.readSnapshot({
      first,
      min,
      prefix: prefix ?? '',
      ringFirst,
      picked,
    })) as SnapshotReply;
    const pageIds = ids1.slice(0, first);
    const cursors = pageIds.map(validate.cursor.encoder(listing));
    const stats: Record<string, string> = {};
    for (let i = 0; i + 1 < flatStats.length; i += 2) {
      stats[flatStats[i] as string] = flatStats[i + 1] as string;
    }
    const [groups, paused, active, dead, completed] = cards;
    return {
      at: Number(at),
      paused: queuePaused === 1,
      ring,
      ringLevels,
      ringSize: size,
      counts: {
        groups,
        onRing: size,
        paused,
        saturated: parseCount(stats.saturated),
        pending: parseCount(stats.pending),
        delayed: parseCount(stats.delayed),
        active,
        dead,
        completed,
      },
      stats: statsFrom(stats),
      page: {
        groups: this.groupsFrom(pageIds, pageFields),
        cursors,
        hasNextPage: ids1.length > first,
        endCursor: cursors.at(-1) ?? null,
        totalCount: total,
      },
      picked: this.groupsFrom(picked, pickedFields),
    };
  }

  async known(): Promise<boolean> {
    return (await this.core.redis.sismember(this.core.registry, this.core.name)) === 1;
  }

  async ring(): Promise<string[]> {
    return (await this.rota()).map((entry) => entry.group);
  }

  async rota(): Promise<RotaEntry[]> {
    const k = this.core.keys;
    // One MULTI, so the two rotas are read at one instant.
    const [levels, ring] = (await values(
      this.core.redis.multi().zrange(k.levels, 0, -1, 'WITHSCORES').lrange(k.ring, 0, -1),
    )) as [string[], string[]];
    return rotaEntries(levels, ring);
  }

  async paused(): Promise<string[]> {
    return (await this.core.redis.smembers(this.core.keys.paused)).sort();
  }

  async activeGroups(): Promise<GroupInfo[]> {
    const all = await this.core.redis.hgetall(this.core.keys.gactive);
    const ids = Object.keys(all)
      .filter((id) => parseCount(all[id]) > 0)
      .sort();
    return this.readGroups(ids);
  }

  async counts(): Promise<QueueCounts> {
    const [groups, onRing, paused, saturated, pending, delayed, active, dead, completed] =
      await this.core.commands.readCounts();
    return {
      groups: Number(groups),
      onRing: Number(onRing),
      paused: Number(paused),
      saturated: parseCount(saturated),
      pending: parseCount(pending),
      delayed: parseCount(delayed),
      active: Number(active),
      dead: Number(dead),
      completed: Number(completed),
    };
  }

  async cap(): Promise<QueueCap> {
    const k = this.core.keys;
    const [[limit, reserved], active, override] = (await values(
      this.core.redis
        .multi()
        .hmget(k.settings, 'limit', 'reserved')
        .zcard(k.active)
        .hget(k.overrideData, 'queueLimit:'),
    )) as [[string | null, string | null], number, string | null];
    return queueCap(limit, active, reserved, override);
  }

  async defaultMaxPending(): Promise<number | null> {
    return parseLimit(await this.core.redis.hget(this.core.keys.maxPending, ''));
  }

  async state(): Promise<QueueState> {
    return (await this.core.redis.hget(this.core.keys.settings, 'paused')) === '1'
      ? 'PAUSED'
      : 'RUNNING';
  }

  async retention(): Promise<QueueRetention> {
    const [completedCount, completedAgeMs, deadCount, deadAgeMs] = await this.core.redis.hmget(
      this.core.keys.settings,
      'completedCount',
      'completedAgeMs',
      'deadCount',
      'deadAgeMs',
    );
    return {
      completed: retentionFrom(Defaults.completedRetention, completedCount, completedAgeMs),
      dead: retentionFrom(Defaults.deadRetention, deadCount, deadAgeMs),
    };
  }

  async stats(): Promise<QueueStats> {
    return statsFrom(await this.core.redis.hgetall(this.core.keys.stats));
  }

  async metrics(options: { maxSteps?: number } = {}): Promise<QueueMetrics> {
    const maxSteps =
      validate.options('options', options, { maxSteps: true }).maxSteps ?? METRICS_HEAD_STEPS;
    validate.integerIn('maxSteps', maxSteps, 1, validate.Limits.maxMetricsSteps);
    return decodeMetrics(await this.core.commands.readMetrics({ maxSteps }));
  }

  async workers(): Promise<WorkerInfo[]> {
    const [, ids, infos, leases] = await this.core.commands.readWorkers(
      validate.Limits.maxWorkersListed,
    );
    const workers: WorkerInfo[] = [];
    ids.forEach((id, i) => {
      const info = decodeWorkerInfo(id, infos[i] ?? null, leases[i] ?? null);
      if (info !== null) workers.push(info);
    });
    return workers.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async workerCount(): Promise<number> {
    return Number((await this.core.commands.countWorkers())[1]);
  }

  async throughput(minutes: number): Promise<ThroughputPoint[]> {
    validate.integerIn('minutes', minutes, 1, validate.Limits.throughputMinutes);
    const [current, counts] = await this.core.commands.readThroughput({ minutes });
    const points: ThroughputPoint[] = [];
    for (let i = 0; i < minutes; i++) {
      points.push({
        at: (current - minutes + 1 + i) * 60_000,
        enqueued: counts[4 * i] ?? 0,
        claimed: counts[4 * i + 1] ?? 0,
        completed: counts[4 * i + 2] ?? 0,
        failed: counts[4 * i + 3] ?? 0,
      });
    }
    return points;
  }

  async topGroups(by: GroupRanking, first: number = Defaults.topGroups): Promise<TopGroup[]> {
    const ranking = validate.groupRanking(by);
    const n = validate.topGroupsFirst(first);
    const [at, , ids, fields, oldest] = await this.core.commands.readTopGroups({
      by: ranking,
      first: n,
      maxSteps: METRICS_HEAD_STEPS,
    });
    return this.groupsFrom(ids, fields).map((info, i) => {
      const id = oldest[2 * i] ?? null;
      const enqueuedText = oldest[2 * i + 1];
      const enqueuedAt =
        typeof enqueuedText === 'string' && /^\d+$/.test(enqueuedText)
          ? Number(enqueuedText)
          : null;
      return {
        ...info,
        oldestPendingId: id,
        oldestPendingAt: enqueuedAt,
        oldestPendingAgeMs: enqueuedAt === null ? null : Math.max(0, Number(at) - enqueuedAt),
      };
    });
  }

  async job(id: string): Promise<Job | null> {
    let jobId: string;
    try {
      jobId = validate.jobId(this.core.name, id);
    } catch {
      return null;
    }
    const [fields, entries] = await this.core.commands.readJob({ id: jobId });
    if (fields.length === 0) return null;
    return { ...decodeJob(this.core.name, jobId, fields), errors: decodeErrors(entries) };
  }

  async jobPlace(id: string): Promise<JobPlace | null> {
    const [place] = await this.jobPlaces([id]);
    return place ?? null;
  }

  async jobPlaces(ids: readonly string[]): Promise<(JobPlace | null)[]> {
    if (!Array.isArray(ids)) throw badInput('ids', 'must be an array of job ids');
    if (ids.length > validate.Limits.maxPageSize) {
      throw badInput('ids', `holds ${ids.length} ids; at most ${validate.Limits.maxPageSize}`);
    }
    if (ids.length === 0) return [];
    // The jobs, sent together (one round trip on the connection); TIME beside them.
    const [jobs, now] = await Promise.all([
      Promise.all(ids.map((id) => this.job(id))),
      this.core.commands.clock(),
    ]);
    const pending = jobs.filter((j): j is Job => j !== null && j.state === 'PENDING');
    const groupIds = [...new Set(pending.map((j) => j.group))];
    const k = this.core.keys;
    const last = PLACE_SAMPLES - 1;
    let ranks = new Map<Job, number | null>();
    const done = new Map<string, string[]>();
    const info = new Map<string, GroupInfo>();
    let queueDone: string[] = [];
    let queuePaused = false;
    if (pending.length > 0) {
      // One MULTI (one instant): each job's rank in its lane, O(log lane); each group's newest
      // completions and the queue's, O(log n + K); the queue's pause.
      const multi = this.core.redis.multi();
      for (const j of pending) multi.zrank(k.lane(j.group), j.id);
      for (const g of groupIds) multi.zrevrange(k.groupCompleted(g), 0, last, 'WITHSCORES');
      multi.zrevrange(k.completed, 0, last, 'WITHSCORES').hget(k.settings, 'paused');
      const [replies, groups] = await Promise.all([values(multi), this.readGroups(groupIds)]);
      ranks = new Map(pending.map((j, i) => [j, replies[i] as number | null]));
      for (const [i, g] of groupIds.entries()) {
        done.set(g, replies[pending.length + i] as string[]);
        info.set(g, groups[i] as GroupInfo);
      }
      queueDone = replies[pending.length + groupIds.length] as string[];
      queuePaused = replies[pending.length + groupIds.length + 1] === '1';
    }
    const claimed = await this.claimedAt(groupIds.map((g) => done.get(g) ?? []));
    const service = new Map(
      groupIds.map((g, i) => [
        g,
        serviceTimes(done.get(g) ?? [], claimed[i] ?? [], info.get(g)?.limit ?? null),
      ]),
    );
    // Only a job a free permit of its group waits for needs its group's place on the rota,
    // O(rota), read once for them all.
    const needsRota = pending.some((j) => {
      const g = info.get(j.group);
      return ranks.get(j) != null && g?.onRing && (g.limit === null || g.active < g.limit);
    });
    const rota = needsRota ? (await this.rota()).map((e) => e.group) : [];
    const rate = queueRate(queueDone);
    return jobs.map((job): JobPlace | null => {
      if (job === null) return null;
      const rank = ranks.get(job) ?? null;
      const group = info.get(job.group);
      if (job.state !== 'PENDING' || group === undefined) {
        const none = { position: null, group: null, service: null, rotaPosition: null };
        return { job, ...none, estimatedStartAt: null, now };
      }
      const times = service.get(job.group) ?? null;
      const rotaPosition = rota.indexOf(job.group) + 1 || null;
      const estimatedStartAt =
        rank === null
          ? null
          : estimateStart({
              now,
              position: rank,
              group,
              service: times,
              queuePaused,
              rotaPosition,
              queueRate: rate,
            });
      return {
        job,
        position: rank,
        group,
        service: times,
        rotaPosition,
        estimatedStartAt,
        now,
      };
    });
  }

  /**
   * Each completion's `claimedAt`, per list of completions (ZREVRANGE … WITHSCORES order), in
   * one MULTI: O(K) a list.
   */
  private async claimedAt(lists: readonly (readonly string[])[]): Promise<(string | null)[][]> {
    const multi = this.core.redis.multi();
    let count = 0;
    for (const finished of lists) {
      for (let i = 0; i < finished.length; i += 2) {
        multi.hget(this.core.keys.job(finished[i] as string), 'claimedAt');
        count++;
      }
    }
    if (count === 0) return lists.map(() => []);
    const flat = (await values(multi)) as (string | null)[];
    let at = 0;
    return lists.map((finished) => {
      const n = finished.length / 2;
      const slice = flat.slice(at, at + n);
      at += n;
      return slice;
    });
  }

  async jobLogs(
    id: string,
    options: {
      first?: number | undefined;
      after?: string | null | undefined;
      last?: number | undefined;
    },
  ): Promise<JobLogPage | null> {
    const { size: first, tail, after: cursor } = validate.logsPage(options);
    let jobId: string;
    try {
      jobId = validate.jobId(this.core.name, id);
    } catch {
      return null;
    }
    const listing = ['logs', this.core.name, jobId] as const;
    const after = cursor === null ? 0 : validate.logsCursor.decode(cursor, listing);
    const [exists, totalCount, entries] = await this.core.commands.readJobLogs({
      id: jobId,
      after,
      count: tail ? first : first + 1,
      tail,
    });
    if (exists === 0) return null;
    const lines = decodeLogs(entries.slice(0, first));
    const encode = validate.logsCursor.encoder(listing);
    const cursors = lines.map((l) => encode(String(l.seq)));
    return {
      logs: lines.map((l) => l.log),
      cursors,
      hasNextPage: entries.length > first,
      endCursor: cursors.at(-1) ?? null,
      totalCount,
    };
  }

  async jobs(options: {
    state: JobState;
    group?: string | undefined;
    first?: number | undefined;
    after?: string | null | undefined;
  }): Promise<JobPage> {
    const opts = validate.options('options', options, {
      state: true,
      group: true,
      ...PAGE,
    });
    const state = validate.jobState(opts.state);
    const group = opts.group == null ? null : validate.groupId(opts.group);
    const first = validate.pageSize(opts.first ?? Defaults.pageSize);
    const listing = ['jobs', this.core.name, state, group] as const;
    const after = opts.after == null ? null : validate.jobCursor.decode(opts.after, listing);
    const k = this.core.keys;
    let index: string;
    let order: 'asc' | 'desc' = 'asc';
    let filter = '';
    let kind: '' | 'completed' | 'dead' = '';
    switch (state) {
      case 'PENDING':
        if (group === null) throw badInput('group', 'is required for PENDING jobs (a lane)');
        index = k.lane(group);
        break;
      case 'DELAYED':
        index = group === null ? k.delayed : k.groupDelayed(group);
        break;
      case 'ACTIVE':
        index = k.active;
        filter = group ?? '';
        break;
      case 'DEAD':
        index = group === null ? k.dead : k.groupDead(group);
        order = 'desc';
        kind = 'dead';
        break;
      case 'COMPLETED':
        index = group === null ? k.completed : k.groupCompleted(group);
        order = 'desc';
        kind = 'completed';
        break;
    }
    const reply = await this.core.commands.readJobs({
      index,
      order,
      first,
      afterScore: after?.score ?? '',
      afterId: after?.id ?? '',
      group: filter,
      kind,
    });
    return decodeJobPage(this.core.name, listing, reply);
  }

  /**
   * Read several groups in one MULTI: 4 O(1) commands each, applied atomically so no script
   * can run between them and a group is never read half before and half after a change.
   */
  private async readGroups(ids: string[]): Promise<GroupInfo[]> {
    if (ids.length === 0) return [];
    // One script, not a MULTI of four commands a group: a fraction of the client's work.
    return this.groupsFrom(ids, await this.core.commands.readGroups({ groups: ids }));
  }

  /** Groups from a script's flat fields, GROUP_FIELD_COUNT per id (includes/groupReply.lua). */
  private groupsFrom(ids: readonly string[], flat: (string | number | null)[]): GroupInfo[] {
    return ids.map((id, i) =>
      groupInfo(this.core.name, id, flat.slice(i * GROUP_FIELD_COUNT, (i + 1) * GROUP_FIELD_COUNT)),
    );
  }
}

/** A number of a worker's JSON, or null when it is not one. */
function numberOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * A worker's entry of `readWorkers-3.lua` (DESIGN.md §4.9): its JSON as `workerBeat-2.lua`
 * wrote it and, for a client, its counted leases. Null when the JSON is missing or not ours
 * (a hand edit): the worker is left out.
 */
function decodeWorkerInfo(
  id: string,
  json: string | null,
  leases: number | null,
): WorkerInfo | null {
  if (json === null) return null;
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (raw === null || typeof raw !== 'object') return null;
  const lastSeenAt = numberOf(raw.lastSeenAt);
  const heartbeatMs = numberOf(raw.heartbeatMs);
  if (lastSeenAt === null || heartbeatMs === null) return null;
  const client = raw.client === true;
  return {
    id,
    hostname: typeof raw.hostname === 'string' ? raw.hostname : null,
    pid: numberOf(raw.pid),
    concurrency: numberOf(raw.concurrency),
    active: client ? Number(leases ?? 0) : (numberOf(raw.active) ?? 0),
    startedAt: numberOf(raw.startedAt) ?? lastSeenAt,
    lastSeenAt,
    version: typeof raw.version === 'string' ? raw.version : null,
    heartbeatMs,
    lapsesAt: lastSeenAt + WORKER_LAPSE_BEATS * heartbeatMs,
    client,
  };
}
