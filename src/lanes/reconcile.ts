/**
 * `Queue.audit` and `Queue.repair` (DESIGN.md §3 invariants I1–I3): find, and on
 * request fix, the damage a crashed writer, a hand edit or another implementation can leave —
 * active counts that disagree with the live leases, groups off the ring that should be on it
 * (or on it twice, or on it while paused), leases without jobs, totals that drifted.
 *
 * Both run the same scripts (`reconcileLeases-3.lua`, then `reconcileGroups-9.lua` over bounded
 * batches of groups), in 'audit' mode (writes nothing) or 'repair' mode, so what audit reports
 * is exactly what repair changes. Each batch is atomic; the whole pass is not.
 *
 * The totals in `stats` (pending, saturated, active) are sums over every group, recounted across
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
import type { Commands, FlatFindings } from './commands.js';
import { assertPlainKeys } from './connection.js';
import type { QueueKeys } from './keys.js';
import { connectionForKey, type RedisClient } from './redisConnection.js';
import { parseCount } from './state.js';

/** What a finding is about (see `reconcileGroups-9.lua`). */
export type FindingKind = 'I1' | 'I2' | 'I3' | 'LIMIT' | 'REGISTRY' | 'LEASE' | 'TOTALS';

/** One difference between what is stored and what the invariants require. */
export interface Finding {
  readonly kind: FindingKind;
  /** A group id (I1, I2, I3, LIMIT, REGISTRY), a job id (LEASE) or a `stats` field (TOTALS). */
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
 * Every group the queue knows of, by any key: the registry, the ring, the paused set and the
 * limit and active hashes (a Redis written by another implementation may have no registry).
 * Read with SCAN-family commands, so Redis is never blocked by the enumeration.
 */
async function allGroups(redis: RedisClient, k: QueueKeys): Promise<string[]> {
  const groups = new Set<string>(await redis.lrange(k.ring, 0, -1));
  const scans: [string, 'zscan' | 'hscan' | 'sscan'][] = [
    [k.groups, 'zscan'],
    [k.glimit, 'hscan'],
    [k.gactive, 'hscan'],
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
const TOTALS = ['pending', 'saturated', 'active'] as const;

/** One recount: the queue's groups (count), each total's recount, and the batches' findings. */
interface Recount {
  readonly groupsChecked: number;
  readonly counts: Record<(typeof TOTALS)[number], number>;
  readonly findings: Finding[];
}

/**
 * Run the leases script (when `withLeases`) and the groups script over every group, in batches,
 * in `mode`; sum the batches' pending and saturated. `active` is ZCARD of `active`.
 */
async function recount(
  redis: RedisClient,
  keys: QueueKeys,
  commands: Commands,
  mode: 'audit' | 'repair',
  withLeases: boolean,
): Promise<Recount> {
  const findings = withLeases ? decode(await commands.reconcileLeases({ mode })) : [];
  const groups = await allGroups(redis, keys);
  let pending = 0;
  let saturated = 0;
  for (let i = 0; i < groups.length; i += RECONCILE_BATCH) {
    const batch = groups.slice(i, i + RECONCILE_BATCH);
    const [flat, batchPending, batchSaturated] = await commands.reconcileGroups({
      mode,
      groups: batch,
    });
    findings.push(...decode(flat));
    pending += batchPending;
    saturated += batchSaturated;
  }
  const active = await redis.zcard(keys.active);
  return { groupsChecked: groups.length, counts: { pending, saturated, active }, findings };
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
 * @returns groupsChecked: the groups examined (count, from the first pass); findings: the
 *   batches' findings, then one TOTALS finding per `stats` total (pending, saturated, active)
 *   that differs from an exact recount (expected: the recount, found: the stored value; repair
 *   wrote the recount) — or, when the queue changed during each of {@link TOTALS_ATTEMPTS}
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
      );
      if (attempt === 1) {
        groupsChecked = pass.groupsChecked;
        findings.push(...pass.findings);
      }
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
      if (mode === 'repair') {
        for (const f of differing) tx.hset(keys.stats, f.subject, f.expected);
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
