/**
 * Upgrading in place (DESIGN.md §2, "Upgrading in place") on a queue the previous release's
 * engine wrote (`test/fixtures/layout1/queue.json`: every job state, three jobs in flight,
 * payloads in the job hashes, none of this version's indexes): refused until converted,
 * converted in resumable steps, then every job runs with its payload and the jobs in flight
 * complete under the tokens the previous engine gave them.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, Queue, type RingmasterError, Worker } from '../../src/lanes/index.js';
import { type KeyDump, loadLayout1Fixture, queueRename, restoreKeys } from '../support/keyDump.js';
import { refusal, uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();

/** The fixture restored under a queue name of its own. */
async function previousRelease(): Promise<{ q: Queue; dump: KeyDump }> {
  const dump = await loadLayout1Fixture();
  const name = uniqueQueueName('previous');
  await restoreKeys(engine.redis(), dump, queueRename(dump.queue, name));
  return { q: new Queue(engine.client(), name), dump };
}

/** The payload each job of the fixture was enqueued with, as stored (JSON text), by id. */
function payloadTexts(dump: KeyDump): Map<string, string> {
  const texts = new Map<string, string>();
  for (const [id, job] of Object.entries(dump.expected)) {
    // The previous engine stored no field for a null payload; this one stores none either.
    if (job.payload !== null) texts.set(id, JSON.stringify(job.payload));
  }
  return texts;
}

async function mismatch(call: () => Promise<unknown>): Promise<RingmasterError> {
  const error = await refusal(call);
  expect(error.code).toBe(ErrorCode.LAYOUT_MISMATCH);
  return error;
}

describe("upgrading a queue of the previous release's layout in place", () => {
  it('moves every payload in resumable steps, then runs each job with it', async () => {
    const { q, dump } = await previousRelease();
    await mismatch(() => q.claim());
    const lastId = Object.keys(dump.expected).length;

    // Steps of 5 ids, stopped after two: half converted, refused, resumed where it stopped.
    const part = await q.upgradeLayout({ batch: 5, maxSteps: 2 });
    expect(part).toMatchObject({ done: false, layout: 'upgrading', visitedTo: 10, lastId });
    expect((await mismatch(() => q.enqueue('g1', {}))).message).toMatch(/part way through/);
    const rest = await q.upgradeLayout({ batch: 5 });
    expect(rest).toMatchObject({ done: true, layout: '2', visitedTo: lastId, lastId });
    // Then repaired: the rankings and the registry's last-seen the version before did not keep.
    const kinds = new Set(rest.repair?.findings.map((f) => f.kind));
    expect(kinds).toEqual(new Set(['RANK', 'REGISTRY']));
    expect((await q.audit()).findings).toEqual([]);
    const texts = payloadTexts(dump);
    expect(part.moved + rest.moved).toBe(texts.size);

    // Every payload moved, none left in a hash.
    expect(await q.redis.hgetall(q.keys.payloads)).toEqual(Object.fromEntries(texts));
    for (const id of Object.keys(dump.expected)) {
      expect(await q.redis.hexists(q.keys.job(id), 'payload')).toBe(0);
    }

    // The jobs in flight complete under the previous engine's tokens, answered with their payloads.
    for (const { id, token } of dump.inFlight) {
      const done = await q.complete(id, token);
      expect(done.state).toBe('COMPLETED');
      expect(JSON.stringify(done.payload)).toBe(texts.get(id));
    }

    // Every pending job runs once, with its payload; the paused group's once resumed.
    const seen = new Map<string, string>();
    const worker = new Worker(q, async (job) => {
      seen.set(job.id, JSON.stringify(job.payload));
    });
    worker.on('error', () => {});
    const pending = Object.entries(dump.expected)
      .filter(([, job]) => job.state === 'PENDING' && job.group !== 'g4')
      .map(([id]) => id);
    await expect.poll(() => pending.every((id) => seen.has(id)), { timeout: 10_000 }).toBe(true);
    await q.resume('g4');
    await expect.poll(() => seen.has('16') && seen.has('17'), { timeout: 10_000 }).toBe(true);
    await worker.close();
    for (const [id, text] of seen) expect(text).toBe(texts.get(id) ?? 'null');

    // Nothing lost or left behind: the upgrade kept every job where it was.
    expect((await q.audit()).findings).toEqual([]);
  });

  it('a Worker of this version started before the upgrade takes work once it is done', async () => {
    const { q } = await previousRelease();
    await q.upgradeLayout({ batch: 4, maxSteps: 1 });
    const codes: string[] = [];
    const ran: string[] = [];
    const worker = new Worker(q, async (job) => {
      ran.push(job.id);
    });
    worker.on('error', (error: Error) => codes.push((error as RingmasterError).code));
    await expect.poll(() => codes.length, { timeout: 5_000 }).toBeGreaterThan(0);
    expect(ran).toEqual([]);
    expect(new Set(codes)).toEqual(new Set([ErrorCode.LAYOUT_MISMATCH]));
    await q.upgradeLayout();
    await expect.poll(() => ran.includes('14'), { timeout: 10_000 }).toBe(true);
    await worker.close();
  });
});
