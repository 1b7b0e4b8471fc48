/**
 * `Queue.audit` and `Queue.repair` (DESIGN.md §3 invariants I1–I4, §4.5): find, and on
 * request fix, the damage a crashed writer, a hand edit or another implementation can leave —
 * active counts that disagree with the live leases, groups off the ring that should be on it
 * (or on it twice, or on it while paused), leases without jobs, delayed, dead or retained
 * completed jobs missing from their group's index or the queue's (I4), a timed override whose
 * deadline and data disagree (I6), a schedule's three keys that disagree, totals that drifted.
 *
 * Both run the same scripts (`reconcileLeases-3.lua`, `reconcileIndexes-3.lua` in bounded steps
 * over the paired job indexes, then `reconcileGroups-9.lua` over bounded batches of groups), in
 * 'audit' mode (writes nothing) or 'repair' mode, so what audit reports is exactly what repair
 * changes. Each batch is atomic; the whole pass is not. So in 'repair' mode each batch records
 * what it changed in the history itself (`includes/repairHistory.lua`, one `repair` entry per
 * group it changed; DESIGN.md §4.6), and the totals' entry goes in the MULTI/EXEC that writes
 * them: a pass cut short has recorded exactly the batches that ran.
 *
 * The totals in `stats` (pending, saturated, active, delayed) are sums over every group, recounted across
 * many script calls, so they are checked with optimistic concurrency: every script that changes
 * one of them also writes `stats`, so a WATCH on `stats` taken before the recount is broken by
 * any change during it. Repair writes the differing totals with MULTI/HSET/EXEC on the watching
 * connection, which Redis applies only if `stats` was not written since the WATCH: the recount
 * is then exact at the moment of the write. Audit reports a difference only under the same
 * check (an empty MULTI/EXEC). When the queue changed meanwhile, the totals are recounted again
 * (at most {@link TOTALS_ATTEMPTS} recounts in all); if it never stands still, each total is
 * reported as a TOTALS finding whose `found` starts with {@link UNSETTLED}, and repair leaves
 * the stored totals as they are. So a repair never writes a wrong total, and an audit never
 * reports a total difference the queue's own traffic made up. (A writer that changes lanes or
 * leases without touching `stats` — another implementation — is not seen by the WATCH.)
 */

import { Defaults } from '../defaults.js';
import type { QueueKeys } from '../keys.js';
import { connectionForKey, type RedisClient } from '../redis/client.js';
import { assertPlainKeys } from '../redis/plainKeys.js';
import type { Commands, FlatFindings, HistoryArgs, PairedKind } from '../scripts/commands.js';
import { definitionSha, judgeSchedule, type ScheduleFinding } from './scheduling.js';
import { parseCount } from './state.js';

/**
 * What a finding is about (see `reconcileGroups-9.lua`; I4, a delayed, dead or retained
 * completed job missing from its group's index or from the queue's, `reconcileIndexes-3.lua`;
 * OVERRIDE, a timed override's two keys disagreeing or its data not decoding, I6,
 * `reconcileOverrides-2.lua`; RESERVE, the stored sum of the reserves against `greserve` and
 * the cap, I8, `reconcileReserves-1.lua`; RATE, a rate limit's token bucket malformed or
 * without a rate, `reconcileBuckets-2.lua`, DESIGN.md §3 "Rate limits"; SCHEDULE, a
 * schedule's keys disagreeing or its definition not one, `reconcileSchedules-3.lua`, §3
 * "Schedules"; DUE, the queue's "next due at" above the earliest of `delayed` or `ratelimited`,
 * `reconcileDue-2.lua`, §3 "Next due at").
 */
export type FindingKind =
  | 'I1'
  | 'I2'
  | 'I3'
  | 'I4'
  | 'LIMIT'
  | 'REGISTRY'
  | 'RANK'
  | 'LEASE'
  | 'TOTALS'
  | 'OVERRIDE'
  | 'RESERVE'
  | 'RATE'
  | 'SCHEDULE'
  | 'DUE';

/** One difference between what is stored and what the invariants require. */
export interface Finding {
  readonly kind: FindingKind;
  /**
   * A group id (I1, I2, I3, LIMIT, REGISTRY, RATE, RANK), a job id (LEASE, I4), a `stats` field (TOTALS),
   * an override's member `<kind>:<group>` (OVERRIDE), `reserved` / `cap` (RESERVE), a
   * schedule id (SCHEDULE), or `delayedAt` / `reopenAt` (DUE).
   */
  readonly subject: string;
  /** What the invariants require (for TOTALS, the recount). */
  readonly expected: string;
  /**
   * What is stored. For TOTALS on a queue that never stood still during a recount, a text
   * starting with {@link UNSETTLED} instead: that total was not checked (nor written).
   */
  readonly found: string;
}

/** The result of an audit (what is wrong) or a repair (what it changed). */
export interface ReconcileReport {
  /** Groups examined (count). */
  readonly groupsChecked: number;
  readonly findings: Finding[];
}

/** Groups per script call: each costs O(active jobs + ring + batch). */
export const RECONCILE_BATCH = 200;
const SCAN_COUNT = 1_000;

function decode(flat: FlatFindings): Finding[] {
  const findings: Finding[] = [];
  for (let i = 0; i + 3 < flat.length; i += 4) {
    findings.push({
      subject: flat[i] as string,
      kind: flat[i + 1] as FindingKind,
      expected: flat[i + 2] as string,
      found: flat[i + 3] as string,
    });
  }
  return findings;
}

/**
 * A reconcile script driven over a SCAN-family cursor (HSCAN/ZSCAN inside the script): `step` is
 * called with '0', then with each cursor it returns, until it returns '0' again; the findings of
 * every step, in order. Each step is one atomic script call.
 */
async function scanFindings(
  step: (cursor: string) => Promise<[findings: FlatFindings, cursor: string]>,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  let cursor = '0';
  do {
    const [flat, next] = await step(cursor);
    findings.push(...decode(flat));
    cursor = String(next);
  } while (cursor !== '0');
  return findings;
}

/**
 * Every group the queue knows of, by any key: the registry, the ring, the paused set and the
 * limit and active hashes, the rankings (a Redis written by another implementation may have no
 * registry).
 * Read with SCAN-family commands, so Redis is never blocked by the enumeration.
 */
async function allGroups(redis: RedisClient, k: QueueKeys): Promise<string[]> {
  const groups = new Set<string>(await redis.lrange(k.ring, 0, -1));
  const scans: [string, 'zscan' | 'hscan' | 'sscan'][] = [
    [k.groups, 'zscan'],
    [k.glimit, 'hscan'],
    [k.gactive, 'hscan'],
    [k.pendingRank, 'zscan'],
    [k.activeRank, 'zscan'],
    [k.paused, 'sscan'],
  ];
  for (const [key, command] of scans) {
    let cursor = '0';
    do {
      const [next, items] = await redis[command](key, cursor, 'COUNT', SCAN_COUNT);
      // zscan and hscan return member/value pairs; sscan returns members only.
      const step = command === 'sscan' ? 1 : 2;
      for (let i = 0; i < items.length; i += step) groups.add(items[i] as string);
      cursor = next;
    } while (cursor !== '0');
  }
  return [...groups].sort();
}

/** CLIENT LIST name of the connection holding the WATCH on `stats` during an audit or repair. */
export const WATCH_CONNECTION_NAME = 'ringmaster:reconcile';

/** What reconcile throws when that connection closes before its EXEC (nothing is written). */
const WATCH_LOST =
  'the connection holding the WATCH on stats closed during the recount: no total was written; run it again';

/** Recounts of the totals, the first included, before they are reported unsettled. */
export const TOTALS_ATTEMPTS = 4;

/** How `found` starts in a TOTALS finding for a total that could not be recounted (busy queue). */
export const UNSETTLED = 'unsettled';

/** The `stats` totals checked, in report order. */
const TOTALS = ['pending', 'saturated', 'active', 'delayed'] as const;

/** The kinds of job kept in a queue-wide index and a group's (I4). */
const PAIRED_KINDS: readonly PairedKind[] = ['delayed', 'dead', 'completed'];

/**
 * I4's paired indexes (`reconcileIndexes-3.lua`), in bounded steps of {@link RECONCILE_BATCH}
 * members: every queue-wide index walked once by rank, tallying per group the members that are
 * in their group's index; then the size of every group's three indexes read in batches of groups,
 * and only an index larger than its tally (it holds a member the queue's does not pair with it)
 * walked. So the cost is O(delayed + dead + completed + groups) script work in small steps, and
 * a group's index is walked only when it holds a stray. Then `payloads` and `results` in HSCAN
 * steps: a payload or result whose job has no hash is an I4 finding (repair deletes it). Each step is atomic; the walk is not:
 * traffic during it may make an index walked for nothing, never a false finding. Returns the
 * findings and how much the walk changed (repair) or would change (audit) the size of `delayed`.
 */
async function reconcilePaired(
  commands: Commands,
  mode: 'audit' | 'repair',
  groups: readonly string[],
  history: HistoryArgs,
): Promise<{ findings: Finding[]; delayedDelta: number }> {
  const findings: Finding[] = [];
  let delayedDelta = 0;
  const tallies = new Map<string, number>();
  const walk = async (kind: PairedKind, group?: string) => {
    for (let start = 0; start >= 0; ) {
      const [flat, next, tally, delta] = await commands.reconcileIndexes({
        mode,
        kind,
        group,
        start,
        batch: RECONCILE_BATCH,
        history,
      });
      findings.push(...decode(flat));
      if (kind === 'delayed') delayedDelta += delta;
      for (let i = 0; i + 1 < tally.length; i += 2) {
        const key = `${kind}\n${tally[i]}`;
        tallies.set(key, (tallies.get(key) ?? 0) + Number(tally[i + 1]));
      }
      start = next;
    }
  };
  for (const kind of PAIRED_KINDS) await walk(kind);
  const known = new Set(groups);
  for (const key of tallies.keys()) known.add(key.slice(key.indexOf('\n') + 1));
  const all = [...known].sort();
  for (let i = 0; i < all.length; i += RECONCILE_BATCH) {
    const batch = all.slice(i, i + RECONCILE_BATCH);
    const cards = await commands.pairedCards({ groups: batch });
    for (const [j, group] of batch.entries()) {
      for (const [n, kind] of PAIRED_KINDS.entries()) {
        const card = Number(cards[j * PAIRED_KINDS.length + n]);
        if (card > (tallies.get(`${kind}\n${group}`) ?? 0)) await walk(kind, group);
      }
    }
  }
  // A payload or result whose job is gone (DESIGN.md §2, "Job layout"), in HSCAN steps: each
  // step checks its fields' hashes atomically, and a job's hash and its payload and result are
  // written and deleted in one script, so traffic meanwhile makes no false finding.
  for (const hash of ['payloads', 'results'] as const) {
    findings.push(
      ...(await scanFindings((cursor) =>
        commands.reconcilePayloads({ hash, mode, cursor, batch: RECONCILE_BATCH, history }),
      )),
    );
  }
  return { findings, delayedDelta };
}

/**
 * The timed-override keys (I6, `reconcileOverrides-2.lua`): `goverride` in HSCAN steps of
 * {@link RECONCILE_BATCH} (each entry's member and data, and its deadline in `overrides`), then
 * `overrides` in ZSCAN steps (a deadline without data). O(overrides) in small steps, each atomic;
 * both halves of an override are written and dropped in one script, so traffic during the walk
 * makes no false finding.
 */
async function reconcileOverrides(
  commands: Commands,
  mode: 'audit' | 'repair',
  history: HistoryArgs,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const op of ['data', 'deadlines'] as const) {
    findings.push(
      ...(await scanFindings((cursor) =>
        commands.reconcileOverrides({ mode, op, cursor, batch: RECONCILE_BATCH, history }),
      )),
    );
  }
  return findings;
}

/**
 * The schedules' keys (DESIGN.md §4.5, "Schedules"; `reconcileSchedules-3.lua`, kind SCHEDULE,
 * subject the schedule id): `schedule` in HSCAN steps of as many definitions as a tick reads,
 * each step's definitions judged here as a tick reads them ({@link judgeSchedule}: croner is
 * the engine's) and, in 'repair' mode, mended in one compare-and-set call per step (a schedule
 * that moved on since the read is left alone, and not reported); then `schedules` (an entry
 * without a definition) and `schedruns` (a last run without one, or malformed) in SCAN steps
 * of {@link RECONCILE_BATCH}, judged and mended in the script. O(schedules) in small steps.
 */
async function reconcileSchedules(
  commands: Commands,
  mode: 'audit' | 'repair',
  history: HistoryArgs,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  let cursor = '0';
  do {
    const [now, next, entries] = await commands.reconcileSchedules({
      mode,
      op: 'definitions',
      cursor,
      batch: Defaults.scheduleTickBatch,
      history,
    });
    const judged: (ScheduleFinding & { id: string; score: string | null; sha: string })[] = [];
    for (let i = 0; i + 3 < entries.length; i += 4) {
      const id = entries[i] as string;
      const text = entries[i + 1] as string;
      const score = entries[i + 2] ?? null;
      const found = judgeSchedule(id, text, score, entries[i + 3] ?? null, Number(now));
      if (found) judged.push({ ...found, id, score, sha: definitionSha(text) });
    }
    // A cron or time zone only this engine does not read is reported, never mended; a
    // schedule that moved on since the read is left alone, and not reported.
    const mends = judged.flatMap((j) => (j.action === 'none' ? [] : [{ ...j, action: j.action }]));
    const applied =
      mode === 'repair' && mends.length > 0
        ? await commands.mendSchedules(mends, history)
        : mends.map(() => 1);
    const done = new Set(mends.filter((_, i) => applied[i] === 1).map((m) => m.id));
    for (const j of judged) {
      if (j.action !== 'none' && !done.has(j.id)) continue;
      findings.push({ kind: 'SCHEDULE', subject: j.id, expected: j.expected, found: j.found });
    }
    cursor = String(next);
  } while (cursor !== '0');
  for (const op of ['entries', 'runs'] as const) {
    findings.push(
      ...(await scanFindings((step) =>
        commands.reconcileSchedules({ mode, op, cursor: step, batch: RECONCILE_BATCH, history }),
      )),
    );
  }
  return findings;
}

/** One recount: the queue's groups (count), each total's recount, and the batches' findings. */
interface Recount {
  readonly groupsChecked: number;
  counts: Record<(typeof TOTALS)[number], number>;
  readonly findings: Finding[];
  /** The change of ZCARD `delayed` the paired-index walk made or (audit) would make. */
  readonly delayedDelta: number;
}

/**
 * Run the leases script, the paired-index walk and the override walk (when `withLeases`: the
 * first pass) and the groups script over every group, in batches, in `mode`; sum the batches' pending and saturated.
 * `active` and `delayed` are ZCARDs of `active` and `delayed`.
 */
async function recount(
  redis: RedisClient,
  keys: QueueKeys,
  commands: Commands,
  mode: 'audit' | 'repair',
  withLeases: boolean,
  history: HistoryArgs,
): Promise<Recount> {
  const findings = withLeases ? decode(await commands.reconcileLeases({ mode, history })) : [];
  const groups = await allGroups(redis, keys);
  let delayedDelta = 0;
  if (withLeases) {
    const paired = await reconcilePaired(commands, mode, groups, history);
    findings.push(...paired.findings);
    delayedDelta = paired.delayedDelta;
    findings.push(...(await reconcileOverrides(commands, mode, history)));
    // The rate limits' buckets (DESIGN.md §3 "Rate limits"), in HSCAN steps.
    findings.push(
      ...(await scanFindings((cursor) =>
        commands.reconcileBuckets({ mode, cursor, batch: RECONCILE_BATCH, history }),
      )),
    );
    findings.push(...(await reconcileSchedules(commands, mode, history)));
    const [reserves] = await commands.reconcileReserves({ mode, history });
    findings.push(...decode(reserves));
    // After the indexes: a job a repair put back in `delayed` is in the earliest read here.
    const [due] = await commands.reconcileDue({ mode, history });
    findings.push(...decode(due));
  }
  let pending = 0;
  let saturated = 0;
  for (let i = 0; i < groups.length; i += RECONCILE_BATCH) {
    const batch = groups.slice(i, i + RECONCILE_BATCH);
    const [flat, batchPending, batchSaturated] = await commands.reconcileGroups({
      mode,
      groups: batch,
      history,
    });
    findings.push(...decode(flat));
    pending += batchPending;
    saturated += batchSaturated;
  }
  const [active, delayed] = await Promise.all([
    redis.zcard(keys.active),
    redis.zcard(keys.delayed),
  ]);
  return {
    groupsChecked: groups.length,
    counts: { pending, saturated, active, delayed },
    findings,
    delayedDelta,
  };
}

/** The history arguments of an audit: it records nothing. */
const NO_HISTORY: HistoryArgs = ['', 0];

/** A stored total as a number when it reads as one, else its text (garbage is reported as is). */
const totalOf = (text: string): number | string =>
  /^-?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : text;

/**
 * Queue the history entry of the totals a repair writes into the transaction that writes them
 * (DESIGN.md §4.6, action 'repair', group ''): the entry exists exactly when the totals
 * changed — an EXEC the WATCH voids writes neither. The fields are the ones
 * `includes/history.lua` writes: before/after `{ <total> }`, detail `{ step: 'totals', changes }`.
 */
function recordTotals(
  tx: ReturnType<RedisClient['multi']>,
  keys: QueueKeys,
  [actor, cap]: HistoryArgs,
  differing: readonly Finding[],
): void {
  if (cap <= 0) return;
  const before: Record<string, number | string> = {};
  const after: Record<string, number | string> = {};
  for (const f of differing) {
    before[f.subject] = totalOf(f.found);
    after[f.subject] = totalOf(f.expected);
  }
  tx.xadd(
    keys.history,
    'MAXLEN',
    cap,
    '*',
    ...['action', 'repair', 'group', '', 'actor', actor],
    ...['before', JSON.stringify(before), 'after', JSON.stringify(after)],
    ...['detail', JSON.stringify({ step: 'totals', changes: differing.length })],
  );
}

/**
 * Run an audit or a repair of one queue (see the module comment).
 *
 * Uses `redis` for the scripts and a connection of its own (named
 * {@link WATCH_CONNECTION_NAME}, closed before it returns or throws) for the WATCH on `stats`,
 * since WATCH belongs to a connection and `redis` is shared by concurrent callers: a duplicate
 * of `redis`, or on a Redis Cluster a plain connection to the master serving the queue's slot
 * (`connectionForKey`; a slot that moves during the recount fails the EXEC, writing nothing).
 *
 * @param mode 'audit' writes nothing; 'repair' fixes what audit would report.
 * @param history [actor, cap] of the history entries a repair records (`QueueCore.historyArgs`);
 *   an audit records nothing, whatever it is given.
 * @returns groupsChecked: the groups examined (count, from the first pass); findings: the
 *   batches' findings, then one TOTALS finding per `stats` total (pending, saturated, active,
 *   delayed) that differs from an exact recount (expected: the recount, found: the stored
 *   value; repair wrote the recount) — or, when the queue changed during each of {@link TOTALS_ATTEMPTS}
 *   recounts, one TOTALS finding per total whose `found` starts with {@link UNSETTLED} (nothing
 *   checked, nothing written).
 * @throws RingmasterError BAD_USER_INPUT when `redis` moves keys ({@link assertPlainKeys}):
 *   its duplicate would WATCH, and write the recount to, another key than the scripts use
 * @throws Error when the WATCH connection closes before its EXEC (no total written; the
 *   batches' repairs before it stand, each atomic); whatever ioredis throws (connection lost, a
 *   script error), unchanged.
 */
export async function reconcile(
  redis: RedisClient,
  keys: QueueKeys,
  commands: Commands,
  mode: 'audit' | 'repair',
  history: HistoryArgs = NO_HISTORY,
): Promise<ReconcileReport> {
  // Before any batch runs, so a refusal has written nothing.
  assertPlainKeys(redis);
  // A WATCH does not survive a reconnect, and an EXEC on a new connection would apply a stale
  // recount: so this connection never reconnects nor queues a command while down, and a drop
  // fails the call (nothing written). Never auto-pipelined: WATCH, the reads it guards and EXEC
  // stay in order, each its own round trip.
  const watcher = await connectionForKey(redis, keys.stats, {
    connectionName: WATCH_CONNECTION_NAME,
    lazyConnect: true,
    enableAutoPipelining: false,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    reconnect: false,
  });
  let dropped = false;
  watcher.on('error', () => {});
  watcher.once('close', () => {
    dropped = true;
  });
  try {
    await watcher.connect();
    let groupsChecked = 0;
    const findings: Finding[] = [];
    let stored: (string | null)[] = [];
    // An audit judges the delayed total as its repair would leave `delayed` (I4 drops and
    // put-backs; in 'repair' mode they are made, so ZCARD already shows them).
    let delayedAdjust = 0;
    for (let attempt = 1; attempt <= TOTALS_ATTEMPTS; attempt += 1) {
      // WATCH first: any script that changes a total from here on writes `stats` and so makes
      // the EXEC below answer null.
      await watcher.watch(keys.stats);
      // The first pass is the audit or repair itself; later ones only recount (in 'audit'
      // mode, writing nothing), their findings already reported by the first.
      const pass = await recount(
        redis,
        keys,
        commands,
        attempt === 1 ? mode : 'audit',
        attempt === 1,
        history,
      );
      if (attempt === 1) {
        groupsChecked = pass.groupsChecked;
        findings.push(...pass.findings);
        if (mode === 'audit') delayedAdjust = pass.delayedDelta;
      }
      pass.counts.delayed += delayedAdjust;
      stored = await watcher.hmget(keys.stats, ...TOTALS);
      const differing: Finding[] = [];
      TOTALS.forEach((field, i) => {
        const found = stored[i] ?? null;
        const expected = pass.counts[field];
        if (parseCount(found) === expected && Number(found ?? 0) >= 0) return;
        differing.push({
          kind: 'TOTALS',
          subject: field,
          expected: String(expected),
          found: found ?? '0',
        });
      });
      const tx = watcher.multi();
      if (mode === 'repair' && differing.length > 0) {
        for (const f of differing) tx.hset(keys.stats, f.subject, f.expected);
        recordTotals(tx, keys, history, differing);
      }
      // null: `stats` was written since the WATCH, so the recount may be off: count again.
      // Answered, the EXEC ran on the connection that took the WATCH (it never reconnects: a
      // closed one fails every command, which the catch below reports as WATCH_LOST).
      const applied = await tx.exec();
      if (applied !== null) {
        findings.push(...differing);
        return { groupsChecked, findings };
      }
    }
    TOTALS.forEach((field, i) => {
      findings.push({
        kind: 'TOTALS',
        subject: field,
        expected: 'a recount during which the queue did not change',
        found: `${UNSETTLED}: the queue changed during each of ${TOTALS_ATTEMPTS} recounts; ${
          mode === 'repair' ? 'left as stored' : 'not checked, stored'
        } ${stored[i] ?? '0'}`,
      });
    });
    return { groupsChecked, findings };
  } catch (error) {
    // Whatever failed (a command on the closed connection, most likely), say why it matters.
    if (dropped) throw new Error(WATCH_LOST, { cause: error });
    throw error;
  } finally {
    watcher.disconnect();
  }
}
