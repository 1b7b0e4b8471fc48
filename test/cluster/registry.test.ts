/**
 * The queue registry on a Redis Cluster (DESIGN.md §2 "Registration"): `P:queues` lives on one
 * master of its own, so its readers and writers must fail soft when that master, or a queue's,
 * does not answer. With `cluster-require-full-coverage no` (the other masters keep serving when
 * a master and its replica are both down):
 * - the registry's master down: the Reaper reaps the queues it last read there, and a call to a
 *   queue registered earlier is not held up by the registration refresh;
 * - a queue's master down: `Query.queues` lists the others and reports that one (null at its
 *   place, REDIS_UNAVAILABLE naming it), and the Reaper reaps the other masters' queues without
 *   waiting for that one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clusterOptions,
  queuesKey,
  REGISTRATION_REFRESH_MS,
  Reaper,
  Ringmaster,
} from '../../src/lanes/internal.js';
import { useTestCluster } from '../support/cluster.js';
import { queueOn } from '../support/clusterQueues.js';
import { untilRedisTimePasses } from '../support/lanes.js';
import { startTestServer, type TestServer } from '../support/server.js';

const handle = useTestCluster();

/** The replica of the master at `port`. */
async function replicaOf(port: number): Promise<number> {
  const nodes = await handle.cluster.topology();
  const master = nodes.find((n) => n.port === port);
  const replica = nodes.find((n) => n.masterId === master?.id);
  if (!replica) throw new Error(`no replica of ${port}`);
  return replica.port;
}

/**
 * Kill the master at `port` and its replica: its slots have no node until they come back. The
 * other masters keep serving theirs (`cluster-require-full-coverage no`, set on every node now:
 * a node restarted since has its default, yes, again).
 */
async function killShard(port: number): Promise<() => Promise<void>> {
  for (const node of handle.cluster.seeds) {
    await handle.cluster.node(node.port).config('SET', 'cluster-require-full-coverage', 'no');
  }
  const replica = await replicaOf(port);
  await handle.cluster.kill(replica);
  await handle.cluster.kill(port);
  return async () => {
    await handle.cluster.restart(port);
    await handle.cluster.restart(replica);
    await handle.cluster.awaitHealthy(30_000);
  };
}

/** Masters other than `port`, by port. */
async function mastersBut(port: number): Promise<number[]> {
  return (await handle.cluster.topology())
    .filter((n) => n.role === 'master' && n.port !== port && n.slots.length > 0)
    .map((n) => n.port)
    .sort((a, b) => a - b);
}

/**
 * An engine on a Cluster client with Ringmaster's budgets for a node timeout of 100 ms: here no
 * failover comes, so calls to a shard that is down fail soon (in ~2–4 s) rather than wait.
 */
function engine(prefix: string): Ringmaster {
  return new Ringmaster(handle.client(clusterOptions(100)), { prefix });
}

/** Enqueue one job on `queue` and claim it under a 1 ms lease, expired when this resolves. */
async function expiredLease(rm: Ringmaster, queue: string): Promise<void> {
  const q = rm.queue(queue);
  await q.enqueue('g');
  const job = await q.claim({ leaseMs: 1 });
  await untilRedisTimePasses(rm.redis, job?.leaseUntil as number);
}

describe('the registry master down', () => {
  it('the Reaper reaps the queues it last read; calls to registered queues are not held up', async () => {
    const rm = engine('reg');
    const registryMaster = await handle.cluster.ownerOf(queuesKey('reg'));
    const [a, b] = (await mastersBut(registryMaster)) as [number, number];
    const queues = [await queueOn(handle.cluster, a, 'ra'), await queueOn(handle.cluster, b, 'rb')];
    for (const queue of queues) await rm.queue(queue).enqueue('warm');
    const errors: (string | null)[] = [];
    const reaper = new Reaper(rm, { onError: (_error, queue) => errors.push(queue) });
    // A first pass reads the registry: the list it keeps.
    expect(await reaper.reapOnce()).toBe(0);
    for (const queue of queues) {
      const q = rm.queue(queue);
      const warm = await q.claim({ leaseMs: 60_000 });
      await q.complete(warm?.id as string, warm?.token as string);
      await expiredLease(rm, queue);
    }
    // The registration refresh is due for these queues on this connection.
    await new Promise((resolve) => setTimeout(resolve, REGISTRATION_REFRESH_MS + 50));

    const restore = await killShard(registryMaster);
    try {
      // The registry read fails (reported, queue null); the last list is reaped anyway.
      expect(await reaper.reapOnce()).toBe(2);
      expect(errors).toEqual([null]);
      // An enqueue to a queue registered earlier does not wait for the registry's master (it
      // would fail, REDIS_UNAVAILABLE, once the redirection budget ran out).
      const job = await rm.queue(queues[0] as string).enqueue('after');
      expect(job.state).toBe('PENDING');
    } finally {
      await restore();
    }
    // The refresh sent with that call, or the next, lands once the registry is back.
    expect((await rm.queues()).filter((q) => queues.includes(q))).toEqual(queues.sort());
  });
});

describe('a queue master down', () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await startTestServer(handle.cluster.url, {
      KEY_PREFIX: 'list',
      REAP_INTERVAL_MS: '86400000',
    });
  });
  afterAll(async () => {
    await api?.stop();
  });

  it('Query.queues reports the queue it cannot read; the Reaper does not wait for it', async () => {
    const registryMaster = await handle.cluster.ownerOf(queuesKey('list'));
    const [down, up] = (await mastersBut(registryMaster)) as [number, number];
    // Named so the unreadable queue comes first in the list, and so in a pass in list order.
    const lost = await queueOn(handle.cluster, down, 'a-lost');
    const alive = [
      await queueOn(handle.cluster, up, 'b-up'),
      await queueOn(handle.cluster, registryMaster, 'c-reg'),
    ];
    const rm = engine('list');
    for (const queue of [lost, ...alive]) await expiredLease(rm, queue);

    const restore = await killShard(down);
    try {
      // The typed Queues document selects names only; counts need each queue's master.
      const answer = await fetch(api.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ queues { name counts { active } } }' }),
      });
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as {
        data: { queues: ({ name: string; counts: { active: number } } | null)[] };
        errors: { path: (string | number)[]; extensions: { code: string; queue?: string } }[];
      };
      expect(body.data.queues).toEqual([
        null,
        { name: alive[0], counts: { active: 1 } },
        { name: alive[1], counts: { active: 1 } },
      ]);
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0]).toMatchObject({
        path: ['queues', 0, 'counts'],
        extensions: { code: 'REDIS_UNAVAILABLE', queue: lost },
      });

      // The reaper: the live masters' queues are reaped before the lost one's error comes.
      const events: string[] = [];
      const reaper = new Reaper(rm, {
        onReaped: (queue) => events.push(`reaped ${queue}`),
        onError: (_error, queue) => events.push(`failed ${queue}`),
      });
      expect(await reaper.reapOnce(), JSON.stringify(events)).toBe(2);
      expect(events.slice(0, 2).sort()).toEqual(alive.map((q) => `reaped ${q}`).sort());
      expect(events[2]).toBe(`failed ${lost}`);
    } finally {
      await restore();
    }
  });
});
