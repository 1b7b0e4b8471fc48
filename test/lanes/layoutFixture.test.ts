/**
 * The layout-1 fixture (`test/fixtures/layout1/queue.json`: a queue the engine of the job layout
 * before wrote, DESIGN.md §2 "Job layout") and its restore (`test/support/keyDump.ts`): restored
 * under a queue name of a test's own, every key holds what the dump holds, and nothing else is
 * written. Only the restore is checked here; what the engine makes of the queue is not.
 */
import { describe, expect, it } from 'vitest';
import {
  type DumpedKey,
  dumpKeys,
  type KeyDump,
  type KeyRename,
  loadLayout1Fixture,
  queueRename,
  restoreKeys,
} from '../support/keyDump.js';
import { escapeGlob, scanAll, uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();
/** The queue registry, `P:queues`. */
const REGISTRY = 'emq:queues';

/** `entry` under `rename`'s names, without its PTTL (which counts down). */
function renamed(entry: DumpedKey, rename: KeyRename): Omit<DumpedKey, 'pttl'> {
  const { pttl: _pttl, ...rest } = entry;
  const key = rename(entry.key);
  if (rest.type !== 'set') return { ...rest, key };
  const members = rest.value.map((m) => rename.member?.(entry.key, m) ?? m).sort();
  return { ...rest, key, value: members };
}

/** A fixture restored under a queue name of its own; returns that name and the renamer. */
async function restored(dump: KeyDump): Promise<{ name: string; rename: KeyRename }> {
  const name = uniqueQueueName('layout1');
  const rename = queueRename(dump.queue, name);
  await restoreKeys(engine.redis(), dump, rename);
  return { name, rename };
}

describe('layout-1 fixture', () => {
  it('holds the keys of one queue, a job in every state and its in-flight leases', async () => {
    const dump = await loadLayout1Fixture();
    expect(dump.queue).toBe('legacy');
    for (const { key } of dump.keys) {
      expect(key === REGISTRY || key.startsWith('emq:{legacy}:'), key).toBe(true);
    }
    const states = new Set(Object.values(dump.expected).map((job) => job.state));
    expect([...states].sort()).toEqual(['ACTIVE', 'COMPLETED', 'DEAD', 'DELAYED', 'PENDING']);
    expect(dump.inFlight.length).toBeGreaterThan(0);
    for (const { id, group } of dump.inFlight) {
      expect(dump.expected[id]).toMatchObject({ group, state: 'ACTIVE' });
    }
  });

  it('restores every key as dumped, under a queue name of its own', async () => {
    const dump = await loadLayout1Fixture();
    const { name, rename } = await restored(dump);
    const r = engine.redis();

    // The registry is compared by membership below: it holds every queue restored in this file.
    const own = dump.keys.filter((entry) => entry.key !== REGISTRY);
    const keys = own.map((entry) => rename(entry.key));
    const back = await dumpKeys(r, keys);
    expect(back.map((entry) => renamed(entry, (key) => key))).toEqual(
      own.map((entry) => renamed(entry, rename)),
    );
    // An expiring key expires again, no later than dumped; the others do not.
    const byKey = new Map(back.map((entry) => [entry.key, entry]));
    for (const entry of own) {
      const pttl = byKey.get(rename(entry.key))?.pttl;
      if (entry.pttl === undefined) expect(pttl, entry.key).toBeUndefined();
      else expect(pttl, entry.key).toBeGreaterThan(0);
      if (entry.pttl !== undefined) expect(pttl, entry.key).toBeLessThanOrEqual(entry.pttl);
    }

    // Nothing else under the new name, nothing under the dumped one; the registry names it.
    expect((await scanAll(r, `${escapeGlob(`emq:{${name}}:`)}*`)).sort()).toEqual(keys.sort());
    expect(await scanAll(r, `${escapeGlob('emq:{legacy}:')}*`)).toEqual([]);
    expect(await r.sismember(REGISTRY, name)).toBe(1);
    expect(await r.sismember(REGISTRY, 'legacy')).toBe(0);
  });

  it('keeps score text, stream ids and payload bytes exactly', async () => {
    const dump = await loadLayout1Fixture();
    const { name } = await restored(dump);
    const r = engine.redis();
    const base = `emq:{${name}}:`;
    const source = (key: string) => {
      const entry = dump.keys.find((e) => e.key === `emq:{legacy}:${key}`);
      if (entry === undefined) throw new Error(`the fixture has no ${key}`);
      return entry;
    };

    const active = source('active');
    if (active.type !== 'zset') throw new Error('active is not a zset');
    for (const [member, score] of active.value) {
      expect(await r.zscore(`${base}active`, member)).toBe(score);
    }
    const history = source('history');
    if (history.type !== 'stream') throw new Error('history is not a stream');
    const ids = (await r.xrange(`${base}history`, '-', '+')).map(([id]) => id);
    expect(ids).toEqual(history.value.map(([id]) => id));
    for (const [id, job] of Object.entries(dump.expected)) {
      const text = await r.hget(`${base}job:${id}`, 'payload');
      expect(text === null ? null : JSON.parse(text), `job ${id}`).toEqual(job.payload);
    }
  });

  it('restores over what a key held before, and twice alike', async () => {
    const dump = await loadLayout1Fixture();
    const name = uniqueQueueName('layout1');
    const rename = queueRename(dump.queue, name);
    const r = engine.redis();
    await r.rpush(`emq:{${name}}:ring`, 'stale');
    await r.hset(`emq:{${name}}:job:1`, 'stale', '1');
    await restoreKeys(r, dump, rename);
    await restoreKeys(r, dump, rename);
    const own = dump.keys.filter((entry) => entry.key !== REGISTRY);
    const keys = own.map((entry) => rename(entry.key));
    expect((await dumpKeys(r, keys)).map((entry) => renamed(entry, (key) => key))).toEqual(
      own.map((entry) => renamed(entry, rename)),
    );
  });
});
