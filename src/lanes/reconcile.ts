/**
 * `Queue.audit` and `Queue.repair` (issue 4; DESIGN.md §3 invariants I1–I3): find, and on
 * request fix, the damage a crashed writer, a hand edit or another implementation can leave —
 * active counts that disagree with the live leases, groups off the ring that should be on it
 * (or on it twice, or on it while paused), leases without jobs, totals that drifted.
 *
 * Both run the same scripts (`reconcileLeases-3.lua`, then `reconcileGroups-9.lua` over bounded
 * batches of groups), in 'audit' mode (writes nothing) or 'repair' mode, so what audit reports
 * is exactly what repair changes. Each batch is atomic; the whole pass is not, so on a busy
 * queue a total may be recounted a few operations off — run repair again when it is quiet.
 */
import type { Redis } from 'ioredis';
import type { Commands, FlatFindings } from './commands.js';
import type { QueueKeys } from './keys.js';
import { parseCount } from './state.js';

/** What a finding is about (see `reconcileGroups-9.lua`). */
export type FindingKind = 'I1' | 'I2' | 'I3' | 'LIMIT' | 'REGISTRY' | 'LEASE' | 'TOTALS';

/** One difference between what is stored and what the invariants require. */
export interface Finding {
  readonly kind: FindingKind;
  /** A group id (I1, I2, I3, LIMIT, REGISTRY), a job id (LEASE) or a `stats` field (TOTALS). */
  readonly subject: string;
  readonly expected: string;
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
async function allGroups(redis: Redis, k: QueueKeys): Promise<string[]> {
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

/** Run an audit or a repair of one queue (see the module comment). */
export async function reconcile(
  redis: Redis,
  keys: QueueKeys,
  commands: Commands,
  mode: 'audit' | 'repair',
): Promise<ReconcileReport> {
  const findings = decode(await commands.reconcileLeases({ mode }));
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

  // Totals: recounted from the batches (exact on a quiet queue, see the module comment).
  const [storedPending, storedSaturated, storedActive] = await redis.hmget(
    keys.stats,
    'pending',
    'saturated',
    'active',
  );
  const active = await redis.zcard(keys.active);
  const totals: [string, number, string | null | undefined][] = [
    ['pending', pending, storedPending],
    ['saturated', saturated, storedSaturated],
    ['active', active, storedActive],
  ];
  for (const [field, expected, stored] of totals) {
    if (parseCount(stored) === expected && Number(stored ?? 0) >= 0) continue;
    findings.push({
      kind: 'TOTALS',
      subject: field,
      expected: String(expected),
      found: stored ?? '0',
    });
    if (mode === 'repair') await redis.hset(keys.stats, field, expected);
  }
  return { groupsChecked: groups.length, findings };
}
