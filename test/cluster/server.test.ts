/**
 * The server on a Redis Cluster (DESIGN.md §6 "Redis Cluster"): started with `REDIS_URL` at one
 * node (the cluster is detected from it) and with `REDIS_CLUSTER_NODES`, it answers every query
 * and mutation on a queue of every master, with no error (no MOVED reaching anyone), and the
 * state it reports is the state stored on that queue's master.
 */
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterOptions, Ringmaster } from '../../src/lanes/index.js';
import {
  ClaimDocument,
  ClearLimitDocument,
  CompleteDocument,
  EnqueueDocument,
  ExtendLeaseDocument,
  GroupsPageDocument,
  PauseGroupDocument,
  QueueOverviewDocument,
  QueueSnapshotDocument,
  QueuesDocument,
  ResumeGroupDocument,
  RetryDocument,
  SetLimitDocument,
} from '../gql/graphql.js';
import { post } from '../support/api.js';
import { useTestCluster } from '../support/cluster.js';
import { queuesOnEveryMaster } from '../support/clusterQueues.js';
import { callsScript, monitorCommands } from '../support/commandStats.js';
import { pollUntil, redisNow, untilRedisTimePasses } from '../support/lanes.js';
import { ok, startTestServer, type TestServer } from '../support/server.js';

const handle = useTestCluster();

/** Every operation of the API on `queue` through `api`; fails on any error. */
async function exercise(api: TestServer, queue: string): Promise<void> {
  ok(await api.request(SetLimitDocument, { queue, group: 'a', limit: 1 }));
  ok(await api.request(PauseGroupDocument, { queue, group: 'b' }));
  ok(await api.request(ResumeGroupDocument, { queue, group: 'b' }));
  ok(await api.request(ClearLimitDocument, { queue, group: 'b' }));
  for (const group of ['a', 'a', 'b']) {
    ok(await api.request(EnqueueDocument, { queue, group, payload: { n: 1 } }));
  }
  const first = ok(await api.request(ClaimDocument, { queue, leaseMs: 60_000 })).claim;
  const second = ok(await api.request(ClaimDocument, { queue, leaseMs: 60_000 })).claim;
  expect([first?.group, second?.group].sort()).toEqual(['a', 'b']);
  const a = first?.group === 'a' ? first : second;
  const b = first?.group === 'a' ? second : first;
  ok(
    await api.request(ExtendLeaseDocument, {
      queue,
      id: a?.id as string,
      token: a?.token as string,
      leaseMs: 60_000,
    }),
  );
  ok(
    await api.request(CompleteDocument, { queue, id: a?.id as string, token: a?.token as string }),
  );
  ok(await api.request(RetryDocument, { queue, id: b?.id as string, token: b?.token as string }));

  const overview = ok(await api.request(QueueOverviewDocument, { name: queue })).queue;
  expect(overview.counts).toMatchObject({ groups: 2, pending: 2, active: 0 });
  expect([...overview.ring].sort()).toEqual(['a', 'b']);
  const page = ok(await api.request(GroupsPageDocument, { queue, first: 10 })).queue.groups;
  expect(page.edges.map((e) => e.node.id)).toEqual(['a', 'b']);
  const snapshot = ok(await api.request(QueueSnapshotDocument, { queue, first: 10 })).queue;
  expect(snapshot.snapshot.counts.pending).toBe(2);

  // Audit (a WATCH on the queue's master) and repair, admin only, raw: no typed document.
  const audit = await post(api.endpoint, {
    query:
      'query($q: String!) { queue(name: $q) { audit { groupsChecked findings { kind subject } } } }',
    variables: { q: queue },
  });
  expect(audit.json?.errors).toBeUndefined();
  expect(audit.json?.data).toEqual({ queue: { audit: { groupsChecked: 2, findings: [] } } });
  const repair = await post(api.endpoint, {
    query: 'mutation($q: String!) { repairQueue(queue: $q) { groupsChecked findings { kind } } }',
    variables: { q: queue },
  });
  expect(repair.json?.errors).toBeUndefined();
  expect(repair.json?.data).toEqual({ repairQueue: { groupsChecked: 2, findings: [] } });
}

describe('the server on a Redis Cluster', () => {
  let viaUrl: TestServer;
  let viaNodes: TestServer;

  beforeAll(async () => {
    const { cluster } = handle;
    // A replica's address: the cluster is found whichever node is named.
    const replica = (await cluster.topology()).find((n) => n.role === 'replica');
    viaUrl = await startTestServer(`redis://127.0.0.1:${replica?.port}`, {
      KEY_PREFIX: 'via-url',
      REAP_INTERVAL_MS: '86400000',
    });
    viaNodes = await startTestServer('', {
      REDIS_CLUSTER_NODES: cluster.nodesList,
      KEY_PREFIX: 'via-nodes',
      REAP_INTERVAL_MS: '86400000',
    });
  }, 60_000);
  afterAll(async () => {
    await viaUrl?.stop();
    await viaNodes?.stop();
  });

  it('REDIS_URL at one node: the cluster is detected, every call on every master answers', async () => {
    expect(viaUrl.server.engine.redis).toBeInstanceOf(Cluster);
    const queues = await queuesOnEveryMaster(handle.cluster, 'url');
    expect(queues).toHaveLength(3);
    for (const { queue } of queues) await exercise(viaUrl, queue);
    const listed = ok(await viaUrl.request(QueuesDocument)).queues.map((q) => q?.name);
    expect(listed).toEqual(queues.map((q) => q.queue).sort());
  });

  it('REDIS_CLUSTER_NODES: every call on every master answers', async () => {
    expect(viaNodes.server.engine.redis).toBeInstanceOf(Cluster);
    const queues = await queuesOnEveryMaster(handle.cluster, 'nodes');
    for (const { queue } of queues) await exercise(viaNodes, queue);
    const listed = ok(await viaNodes.request(QueuesDocument)).queues.map((q) => q?.name);
    expect(listed).toEqual(queues.map((q) => q.queue).sort());
  });

  it('/ready pings every master', async () => {
    const ready = await fetch(`${viaNodes.server.url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, redis: 'up', eviction: 'noeviction' });
  });

  it('GET /metrics reads a queue on every master, each from its own master', async () => {
    const queues = await queuesOnEveryMaster(handle.cluster, 'metrics');
    for (const [i, { queue }] of queues.entries()) {
      const q = viaNodes.server.engine.queue(queue);
      for (let j = 0; j <= i; j++) await q.enqueue(`g${j}`, { j });
    }
    const text = await (await fetch(`${viaNodes.server.url}/metrics`)).text();
    for (const [i, { queue }] of queues.entries()) {
      const counts = await viaNodes.server.engine.queue(queue).counts();
      expect(counts.pending).toBe(i + 1);
      expect(text).toContain(`ringmaster_jobs{queue="${queue}",state="pending"} ${i + 1}\n`);
      expect(text).toContain(`ringmaster_groups{queue="${queue}",state="ready"} ${i + 1}\n`);
      expect(text).toMatch(
        new RegExp(`ringmaster_oldest_pending_age_seconds\\{queue="${queue}"\\} \\d`),
      );
    }
    expect(text).toContain('ringmaster_metrics_read_errors_total 0\n');
  });
});

/**
 * Watch the reap script's calls on the node at `port` (MONITOR): each one's Redis time (ms).
 * Only reap is counted: every server tries each queue's lock every tick (`reaperLock-2.lua`),
 * and only the pass it lets through runs reap.
 */
async function reapCalls(port: number): Promise<{ times: number[]; stop: () => Promise<void> }> {
  const times: number[] = [];
  const monitor = await monitorCommands(handle.cluster.node(port), (time, args) => {
    if (callsScript(args.map(String), 'reap')) times.push(Number(time) * 1000);
  });
  return { times, stop: monitor.stop };
}

describe('N servers on one cluster', () => {
  it('three servers reap each queue of every master once per interval between them', async () => {
    const { cluster } = handle;
    const intervalMs = 100;
    const servers = await Promise.all(
      [0, 1, 2].map(() =>
        startTestServer(cluster.url, { KEY_PREFIX: 'many', REAP_INTERVAL_MS: String(intervalMs) }),
      ),
    );
    try {
      const rm = new Ringmaster(handle.client(clusterOptions(cluster.nodeTimeoutMs)), {
        prefix: 'many',
      });
      const queues = await queuesOnEveryMaster(cluster, 'many');
      for (const { queue } of queues) {
        const q = rm.queue(queue);
        for (const group of ['a', 'b', 'c']) await q.enqueue(group);
        for (let i = 0; i < 3; i++) {
          const job = await q.claim({ leaseMs: 1 });
          await untilRedisTimePasses(rm.redis, job?.leaseUntil as number);
        }
      }
      // Every expired lease taken back exactly once, whichever server took each queue's lock.
      await pollUntil(
        'every lease reaped',
        async () => {
          const stats = await Promise.all(queues.map(({ queue }) => rm.queue(queue).stats()));
          return stats.every((s) => s.reaped >= 3);
        },
        10_000,
      );
      for (const { queue } of queues) {
        const q = rm.queue(queue);
        expect(await q.stats()).toMatchObject({ claimed: 3, reaped: 3 });
        expect(await q.counts()).toMatchObject({ pending: 3, active: 0 });
        // A pass began on the queue's own master, on its clock.
        expect(Number(await rm.redis.get(q.keys.reapedAt))).toBeGreaterThan(0);
      }

      // The per-queue lock and last pass (`P:{Q}:reaper`, `P:{Q}:reapedAt`, on the queue's
      // master) hold on a cluster: over a window, a master runs at most one reap per interval
      // (+ one at its edge), not one per server per interval (3× that).
      for (const { port } of queues) {
        const node = cluster.node(port);
        const watch = await reapCalls(port);
        const from = await redisNow(node);
        await new Promise((resolve) => setTimeout(resolve, 20 * intervalMs));
        const to = await redisNow(node);
        await watch.stop();
        const inWindow = watch.times.filter((t) => t >= from && t <= to);
        expect(inWindow.length).toBeGreaterThan(0);
        expect(inWindow.length).toBeLessThanOrEqual(Math.floor((to - from) / intervalMs) + 1);
      }
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  });
});
