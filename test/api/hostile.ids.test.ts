/**
 * Group ids full of emoji, bidi marks, braces, colons, glob and Lua metacharacters are valid
 * (DESIGN.md §5; the ids are test/fixtures/hostile/ids.ts) and must work end to end over the
 * API — limit, enqueue, pause, resume, claim, complete, paging, prefix search — touching no
 * other group's keys.
 */
import { describe, expect, it } from 'vitest';
import { QUEUE } from '../fixtures/hostile/documents.js';
import { NASTY_IDS } from '../fixtures/hostile/ids.js';
import { post } from '../support/api.js';
import { snapshot } from '../support/lanes.js';
import { useSeededServer } from '../support/seededServer.js';

const hostile = useSeededServer(QUEUE);

const MUTATE = {
  setLimit:
    'mutation($q: String!, $g: String!, $n: Int!) { setLimit(queue: $q, group: $g, limit: $n) { id limit state } }',
  enqueue:
    'mutation($q: String!, $g: String!, $p: JSON) { enqueue(queue: $q, group: $g, payload: $p) { id group payload } }',
  pause:
    'mutation($q: String!, $g: String!) { pauseGroup(queue: $q, group: $g) { id paused onRing } }',
  resume:
    'mutation($q: String!, $g: String!) { resumeGroup(queue: $q, group: $g) { id paused onRing } }',
  claim: 'mutation($q: String!) { claim(queue: $q, leaseMs: 3600000) { id group token payload } }',
  complete:
    'mutation($q: String!, $id: ID!, $t: String!) { complete(queue: $q, id: $id, token: $t) { id state } }',
} as const;
const READ = {
  queue:
    'query($q: String!, $g: String!) { queue(name: $q) { ring paused group(id: $g) { id limit active pending paused onRing state } } }',
  groups:
    'query($q: String!, $after: String) { queue(name: $q) { groups(first: 500, after: $after) { edges { cursor node { id } } } } }',
  prefix:
    'query($q: String!, $p: String!) { queue(name: $q) { groupsWithPrefix(prefix: $p) { totalCount edges { node { id } } } } }',
} as const;

/** Run an operation that must succeed; its data. */
// biome-ignore lint/suspicious/noExplicitAny: the JSON answer of a document written in the test
async function must(query: string, variables: Record<string, unknown>): Promise<any> {
  const response = await post(hostile.api.endpoint, { query, variables });
  expect(response.json?.errors, response.text.slice(0, 300)).toBeUndefined();
  expect(response.status).toBe(200);
  return response.json?.data;
}

/** Everything stored about group `g` of queue `q`, read raw, in a comparable form. */
async function groupFootprint(q: string, g: string): Promise<Record<string, unknown>> {
  const { r } = hostile;
  const base = `emq:{${q}}:`;
  const lane = await r.zrange(`${base}g:${g}:pending`, 0, -1, 'WITHSCORES');
  const leases = Object.entries(await r.hgetall(`${base}leases`)).filter(([, grp]) => grp === g);
  const jobs: Record<string, string | null> = {};
  for (const id of [...lane.filter((_, i) => i % 2 === 0), ...leases.map(([id]) => id)]) {
    jobs[id] = (await r.dumpBuffer(`${base}job:${id}`))?.toString('hex') ?? null;
  }
  return {
    lane,
    laneDump: (await r.dumpBuffer(`${base}g:${g}:pending`))?.toString('hex') ?? null,
    limit: await r.hget(`${base}glimit`, g),
    active: await r.hget(`${base}gactive`, g),
    paused: await r.sismember(`${base}paused`, g),
    onRing: await r.lpos(`${base}ring`, g),
    registered: await r.zscore(`${base}groups`, g),
    leases,
    leaseDeadlines: await Promise.all(leases.map(([id]) => r.zscore(`${base}active`, id))),
    jobs,
  };
}

describe('group ids with metacharacters work end to end and stay isolated', () => {
  let n = 0;
  it.each(NASTY_IDS)('%s', async (_label, id) => {
    n += 1;
    const q = `ids-${n}`;
    // A neighbour with something in every one of its keys: paused, a limit, a backlog, a lease.
    const neighbour = hostile.api.server.engine.queue(q);
    await neighbour.setLimit('a', 5);
    for (let i = 0; i < 3; i++) await neighbour.enqueue('a', { i });
    await neighbour.claim({ leaseMs: 3_600_000 });
    await neighbour.pause('a');
    const neighbourBefore = await groupFootprint(q, 'a');
    const before = await snapshot(hostile.r);

    expect((await must(MUTATE.setLimit, { q, g: id, n: 1 })).setLimit).toEqual({
      id,
      limit: 1,
      state: 'IDLE',
    });
    const first = (await must(MUTATE.enqueue, { q, g: id, p: { id } })).enqueue;
    expect(first).toMatchObject({ group: id, payload: { id } });
    const second = (await must(MUTATE.enqueue, { q, g: id, p: { id, n: 2 } })).enqueue;
    // The lane key is exactly P:{Q}:g:<id>:pending, with both jobs in FIFO order.
    expect(await hostile.r.zrange(`emq:{${q}}:g:${id}:pending`, 0, -1)).toEqual([
      first.id,
      second.id,
    ]);
    expect((await must(READ.queue, { q, g: id })).queue.ring).toEqual([id]);

    expect((await must(MUTATE.pause, { q, g: id })).pauseGroup).toEqual({
      id,
      paused: true,
      onRing: false,
    });
    const whilePaused = (await must(READ.queue, { q, g: id })).queue;
    expect(whilePaused.ring).toEqual([]);
    expect([...whilePaused.paused].sort()).toEqual(['a', id].sort());
    expect((await must(MUTATE.resume, { q, g: id })).resumeGroup.onRing).toBe(true);

    // Only this group is serviceable, so the claim is its first job; at limit 1 it leaves the ring.
    const claimed = (await must(MUTATE.claim, { q })).claim;
    expect(claimed).toMatchObject({ id: first.id, group: id, payload: { id } });
    expect((await must(READ.queue, { q, g: id })).queue).toMatchObject({
      ring: [],
      group: { id, limit: 1, active: 1, pending: 1, state: 'SATURATED', onRing: false },
    });
    expect((await must(MUTATE.complete, { q, id: claimed.id, t: claimed.token })).complete).toEqual(
      { id: first.id, state: 'COMPLETED' },
    );
    expect((await must(READ.queue, { q, g: id })).queue).toMatchObject({
      ring: [id],
      group: { id, limit: 1, active: 0, pending: 1, paused: false, onRing: true, state: 'READY' },
    });

    // Paging: the id appears once, and its cursor pages past it.
    const edges: { cursor: string; node: { id: string } }[] = (await must(READ.groups, { q })).queue
      .groups.edges;
    expect(edges.map((e) => e.node.id).sort()).toEqual(['a', id].sort());
    const mine = edges.find((e) => e.node.id === id) as { cursor: string };
    const after: { node: { id: string } }[] = (await must(READ.groups, { q, after: mine.cursor }))
      .queue.groups.edges;
    expect(after.map((e) => e.node.id)).not.toContain(id);
    // Prefix search treats the id as bytes, not as a pattern or a lex-range operator.
    expect((await must(READ.prefix, { q, p: id })).queue.groupsWithPrefix).toEqual({
      totalCount: 1,
      edges: [{ node: { id } }],
    });

    // Isolation: the neighbour is exactly as it was, and only this queue's keys were written.
    expect(await groupFootprint(q, 'a')).toEqual(neighbourBefore);
    const after_ = await snapshot(hostile.r);
    const base = `emq:{${q}}:`;
    const allowed = new Set([
      ...[
        'glimit',
        'gactive',
        'ring',
        'paused',
        'wake',
        'groups',
        // When each group was last registered (forgetting groups).
        'gseen',
        'active',
        'leases',
        'stats',
        'seq',
        // The oldest-pending index and the steering history.
        'heads',
        'history',
        // The jobs' payloads, beside their hashes (the job layout).
        'payloads',
        // The events per minute (DESIGN.md §3, "Throughput history").
        'throughput',
        // The group rankings (DESIGN.md §3, "Group rankings").
        'gpending',
        'gactiverank',
      ].map((k) => `${base}${k}`),
      `${base}g:${id}:pending`,
      `${base}job:${second.id}`,
      // The completed job, kept by the completed retention in the queue's and its group's index.
      `${base}completed`,
      `${base}g:${id}:completed`,
      ...(await hostile.r.zrange(`${base}completed`, 0, -1)).map((kept) => `${base}job:${kept}`),
      'emq:queues',
    ]);
    const changed = [...new Set([...before.keys(), ...after_.keys()])].filter(
      (key) => before.get(key) !== after_.get(key),
    );
    expect(changed.filter((key) => !allowed.has(key))).toEqual([]);
    expect(changed).toContain(`${base}g:${id}:pending`);
  });
});
