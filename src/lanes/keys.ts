/**
 * The one key producer: every Redis key Ringmaster touches is named here. The map of them —
 * each key's pattern, type and what it holds — is the table of DESIGN.md §2, and
 * `test/lanes/keyTable.test.ts` holds this file to it: each key built here is a row there, and
 * each row a key built here.
 *
 * Scripts that pick a group or mint a job id build the keys named by data themselves from
 * `base` (`P:{Q}:`), which shares the slot, with the builders of `src/lua/includes/keys.lua`
 * (its Lua half, with the same `WAKE_LENGTH` and `JOB_LAYOUT`), and build the operations keys
 * (history … heads) from `base` too (see keys.lua for why): change one side, change the other.
 * `test/lua/includes.test.ts` checks that the two sides agree.
 */
export interface QueueKeys {
  /** `P:{Q}:` — the base scripts build lane and job keys from. */
  readonly base: string;
  readonly glimit: string;
  readonly gactive: string;
  readonly ring: string;
  readonly paused: string;
  readonly wake: string;
  readonly groups: string;
  readonly active: string;
  readonly leases: string;
  readonly dead: string;
  /** `P:{Q}:delayed` — every delayed job of the queue by when it runs: what promotion reads. */
  readonly delayed: string;
  /** `P:{Q}:completed` — retained completed jobs by when they completed (retention, §2). */
  readonly completed: string;
  /**
   * `P:{Q}:payloads` — hash: job id → its payload (JSON text), for every job that has a hash and
   * a payload (`payloadsKeyOf`). Kept out of the job's hash so that the hash stays a listpack
   * (a value over `hash-max-listpack-value`, 64 bytes, would make it a hash table: DESIGN.md §2).
   */
  readonly payloads: string;
  /**
   * `P:{Q}:results` — hash: job id → its processor's result (JSON text), for each completed job
   * kept by the retention that has one (`resultsKeyOf`; DESIGN.md §2, "Job layout").
   */
  readonly results: string;
  /**
   * `P:{Q}:settings` — hash: `paused` ('1' while the queue is paused), retention policies,
   * `layout` (the job layout, {@link JOB_LAYOUT}), the queue's cap: `limit`, `reserved` (the sum
   * of the groups' reserves) and `capped` ('1' once a claim was held back by the cap).
   */
  readonly settings: string;
  readonly seq: string;
  readonly stats: string;
  /**
   * `P:{Q}:reaper` — the reaper lock (`reaperLock-2.lua`, `reaperUnlock-1.lua`): held by one
   * reaper while its pass of the queue runs. Saves work only; no job script reads it.
   */
  readonly reaper: string;
  /**
   * `P:{Q}:reapedAt` — when the last reaper pass of the queue began (ms, Redis clock): a reaper
   * skips the queue until its own interval has passed since (`reaperLock-2.lua`).
   */
  readonly reapedAt: string;
  /**
   * `P:{Q}:guard` — the slot guard: declared as the last key of every queue script and never
   * written, so Redis Cluster never runs a script while the queue's slot is moving (DESIGN.md §3,
   * "Scripts on a Redis Cluster"): on the migrating node a missing declared key answers ASK, and
   * on the importing node a multi-key command missing a key answers TRYAGAIN. Scripts run only
   * where every key of the queue is, so none can apply part of its writes and then fail on a key
   * that has moved.
   */
  readonly guard: string;
  /** `P:{Q}:history` — stream: the queue's steering history, capped (`historyKeyOf`). */
  readonly history: string;
  /** `P:{Q}:overrides` — zset: `<kind>:<group>` → when the timed override reverts (ms). */
  readonly overrides: string;
  /** `P:{Q}:goverride` — hash: `<kind>:<group>` → the timed override, JSON. */
  readonly overrideData: string;
  /** `P:{Q}:grate` — hash: group → its rate limit, `<max>:<windowMs>:<burst>`. */
  readonly rate: string;
  /** `P:{Q}:gwindow` — hash: group → its token bucket, `<tokens>:<atMs>` (none: full). */
  readonly rateWindow: string;
  /** `P:{Q}:ratelimited` — zset: groups short of their head's cost → when it refills (ms). */
  readonly rateLimited: string;
  /** `P:{Q}:gweight` — hash: group → weight, its turns per round of the ring (none = 1). */
  readonly weight: string;
  /** `P:{Q}:gturns` — hash: group → turns it has taken in this round (weighted groups). */
  readonly turns: string;
  /**
   * `P:{Q}:greserve` — hash: group → its reserve, the permits of the queue's cap it is owed
   * first (`reserveKeyOf`; DESIGN.md §3, "The queue's cap and reserves").
   */
  readonly reserve: string;
  /**
   * `P:{Q}:gmaxpending` — hash: group → its backlog bound (pending + delayed jobs), and the
   * empty field (no group id is empty) → the queue's default bound (`maxPendingKeyOf`;
   * DESIGN.md §3, "Backlog bounds").
   */
  readonly maxPending: string;
  /** `P:{Q}:heads` — zset: group → a lower bound of its lane's lowest job id (oldest pending). */
  readonly heads: string;
  /**
   * `P:{Q}:gpending` — zset: group → −(its lane's size), exactly the non-empty lanes: the
   * PENDING ranking of `Queue.topGroups` (`pendingRankKeyOf`, includes/groupRanks.lua).
   */
  readonly pendingRank: string;
  /**
   * `P:{Q}:gactiverank` — zset: group → −(its active count), exactly the groups of `gactive`:
   * the ACTIVE ranking of `Queue.topGroups` (`activeRankKeyOf`, includes/groupRanks.lua).
   */
  readonly activeRank: string;
  /**
   * `P:{Q}:levels` — zset: the rota of the groups whose lane head is not of the default priority,
   * group → level × 10^13 + turn (DESIGN.md §3, "Levels"; `levelsKeyOf`, includes/levels.lua).
   */
  readonly levels: string;
  /**
   * `P:{Q}:prioritized` — string: exists once the queue has held a job of a priority other than
   * the default, so claims read lane heads' levels (DESIGN.md §3, "Levels"; `prioritizedKeyOf`).
   */
  readonly prioritized: string;
  /**
   * `P:{Q}:ringwatched` — string: exists while a live feed watches the ring (`ringChanged`,
   * DESIGN.md §4.4 "The ring log"; `ringWatchedKeyOf`); the feed sets it with a TTL and renews it.
   */
  readonly ringWatched: string;
  /**
   * `P:{Q}:ringlog` — list: while the ring is watched, each change a script makes to it, oldest
   * first, JSON (`ringLogKeyOf`, includes/ringLog.lua).
   */
  readonly ringLog: string;
  /**
   * `P:{Q}:gseen` — zset: registered group → when a call last registered it (ms, Redis clock);
   * the reaper forgets a group idle and unset that long ago (DESIGN.md §3, "Forgetting groups").
   */
  readonly seen: string;
  /**
   * `P:{Q}:watched` — zset: job id → until when (ms, Redis clock) a live feed watches it
   * (`jobChanged`, DESIGN.md §4.4; `watchedKeyOf`). Every script that moves a job asks it
   * once per call; the reaper trims members past their time.
   */
  readonly watched: string;
  /**
   * `P:{Q}:schedules` — zset: schedule id → when its next tick is due (ms, Redis clock;
   * DESIGN.md §3, "Schedules").
   */
  readonly schedules: string;
  /** `P:{Q}:schedule` — hash: schedule id → its definition, JSON (DESIGN.md §3, "Schedules"). */
  readonly scheduleDefs: string;
  /**
   * `P:{Q}:schedruns` — hash: schedule id → its last tick fired, `<lastRunAt>:<lastJobId>`
   * (DESIGN.md §3, "Schedules").
   */
  readonly scheduleRuns: string;
  /**
   * `P:{Q}:workers` — zset: live worker id → when it lapses (ms, Redis clock: its last heartbeat
   * plus its lapse; DESIGN.md §4.9 "Workers"; `workersKeyOf`).
   */
  readonly workers: string;
  /**
   * `P:{Q}:workerinfo` — hash: worker id → what it said of itself at its last heartbeat, JSON
   * (DESIGN.md §4.9; `workerInfoKeyOf`).
   */
  readonly workerInfo: string;
  /**
   * `P:{Q}:throughput` — hash: slot (minute % 1,440) → `<minute>:<enqueued>:<claimed>:
   * <completed>:<failed>`, the queue's per-minute counts for a day (`throughputKeyOf`,
   * includes/throughput.lua; DESIGN.md §3, "Throughput history").
   */
  readonly throughput: string;
  /** `P:{Q}:g:<group>:pending` (`laneKeyOf` in `src/lua/includes/keys.lua`) */
  lane(group: string): string;
  /** `P:{Q}:job:<id>` (`jobKeyOf` in `src/lua/includes/keys.lua`) */
  job(id: string): string;
  /** `P:{Q}:g:<group>:delayed` (`groupDelayedKeyOf`) */
  groupDelayed(group: string): string;
  /** `P:{Q}:g:<group>:dead` (`groupDeadKeyOf`) */
  groupDead(group: string): string;
  /** `P:{Q}:g:<group>:completed` (`groupCompletedKeyOf`) */
  groupCompleted(group: string): string;
  /** `P:{Q}:job:<id>:errors` (`errorsKeyOf`): deleted with the job's hash. */
  errors(id: string): string;
  /** `P:{Q}:job:<id>:logs` (`logsKeyOf`): the job's log lines, deleted with the job's hash. */
  logs(id: string): string;
  /**
   * `P:{Q}:job:<id>:events` (`jobEventsKeyOf`): a watched job's state changes, one JSON entry
   * each, oldest first (includes/jobEvents.lua). Not deleted with the job's hash: its last
   * entry says the job is gone. It expires by itself.
   */
  jobEvents(id: string): string;
  /**
   * `P:{Q}:idem:<key>` for an enqueue's idempotency key; `idem('')` names the key an enqueue
   * without one declares and never touches (no key is empty).
   */
  idem(key: string): string;
  /**
   * `P:{Q}:debounce:<key>` (`debounceKeyOf`): the id of the pending or delayed job an enqueue's
   * debounce key made (DESIGN.md §3, "Debounce").
   */
  debounce(key: string): string;
}

/**
 * Wake tokens kept in `P:{Q}:wake` (DESIGN.md §2); `src/lua/includes/keys.lua` holds the same
 * number, and `includes/settleGroup.lua` trims to it.
 */
export const WAKE_LENGTH = 64;

/**
 * The job layout these scripts read and write, kept in `P:{Q}:settings` as `layout`
 * (DESIGN.md §2, "Job layout"): 2 since payloads moved out of the job hashes (payloads in
 * `P:{Q}:payloads`, no `score` in the job hash). A queue with jobs and no `layout` was written by
 * the layout before (1). `src/lua/includes/keys.lua` holds the same value.
 */
export const JOB_LAYOUT = '2';

/** The keys of queue `queue` under `prefix` (DESIGN.md §2). Names are not validated here. */
export function queueKeys(prefix: string, queue: string): QueueKeys {
  const base = `${prefix}:{${queue}}:`;
  return {
    base,
    glimit: `${base}glimit`,
    gactive: `${base}gactive`,
    ring: `${base}ring`,
    paused: `${base}paused`,
    wake: `${base}wake`,
    groups: `${base}groups`,
    active: `${base}active`,
    leases: `${base}leases`,
    dead: `${base}dead`,
    delayed: `${base}delayed`,
    completed: `${base}completed`,
    payloads: `${base}payloads`,
    results: `${base}results`,
    settings: `${base}settings`,
    seq: `${base}seq`,
    stats: `${base}stats`,
    reaper: `${base}reaper`,
    reapedAt: `${base}reapedAt`,
    guard: `${base}guard`,
    history: `${base}history`,
    overrides: `${base}overrides`,
    overrideData: `${base}goverride`,
    rate: `${base}grate`,
    rateWindow: `${base}gwindow`,
    rateLimited: `${base}ratelimited`,
    weight: `${base}gweight`,
    turns: `${base}gturns`,
    reserve: `${base}greserve`,
    maxPending: `${base}gmaxpending`,
    heads: `${base}heads`,
    pendingRank: `${base}gpending`,
    activeRank: `${base}gactiverank`,
    levels: `${base}levels`,
    prioritized: `${base}prioritized`,
    ringWatched: `${base}ringwatched`,
    ringLog: `${base}ringlog`,
    seen: `${base}gseen`,
    watched: `${base}watched`,
    schedules: `${base}schedules`,
    scheduleDefs: `${base}schedule`,
    scheduleRuns: `${base}schedruns`,
    workers: `${base}workers`,
    workerInfo: `${base}workerinfo`,
    throughput: `${base}throughput`,
    lane: (group) => `${base}g:${group}:pending`,
    job: (id) => `${base}job:${id}`,
    groupDelayed: (group) => `${base}g:${group}:delayed`,
    groupDead: (group) => `${base}g:${group}:dead`,
    groupCompleted: (group) => `${base}g:${group}:completed`,
    errors: (id) => `${base}job:${id}:errors`,
    logs: (id) => `${base}job:${id}:logs`,
    jobEvents: (id) => `${base}job:${id}:events`,
    idem: (key) => `${base}idem:${key}`,
    debounce: (key) => `${base}debounce:${key}`,
  };
}

/**
 * `P:queues` — the set of queue names, written outside the queue scripts (another slot), before
 * them: see `QueueCore.registered` (queue/core.ts).
 */
export function queuesKey(prefix: string): string {
  return `${prefix}:queues`;
}

/**
 * `P:canary:{<id>}:<type>` — a key of the live feed's keyspace canary (`src/pubsub/canary.ts`):
 * `id` is the feed's own, `type` the Redis type it probes (`l`, `h`, `s`, `z`). It cannot
 * collide with a queue's keys (`P:{…`) or the registry (`P:queues`).
 */
export function canaryKey(prefix: string, id: string, type: string): string {
  return `${prefix}:canary:{${id}}:${type}`;
}

/**
 * `P:probe:{<n>}` — a key `Ringmaster.checkServer` reads and deletes to learn whether its user
 * may run the scripts on the prefix's keys (never written). `n` picks its slot: one per master
 * on a Redis Cluster. It cannot collide with a queue's keys (`P:{…`), the registry or the
 * canary's.
 */
export function probeKey(prefix: string, n: number): string {
  return `${prefix}:probe:{${n}}`;
}
