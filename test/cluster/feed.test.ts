/**
 * The live feed on a real Redis Cluster (3 masters + 3 replicas, test/support/cluster.ts):
 * keyspace notifications are node-local, so the feed holds one subscriber per master and routes
 * each watched queue's channels to the master that owns its slot (DESIGN.md §4.4). A failover
 * (SIGKILL or graceful) or a slot move moves the watch to the new owner, and every subscriber
 * of a moved watch gets a RESYNC; `notify-keyspace-events` is kept on every node; the server's
 * connections do not grow with watchers.
 */
import type { ClusterOptions, Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { Ringmaster } from '../../src/lanes/index.js';
import { LiveFeed, type LiveFeedOptions, type RingChange } from '../../src/pubsub/index.js';
import { missingFlags } from '../../src/pubsub/notifyConfig.js';
import { type ClusterNodeInfo, useTestCluster } from '../support/cluster.js';
import { captureLogger, queueName, Reader, waitFor } from '../support/pubsub.js';

const PREFIX = 'pst';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the live feed on a Redis Cluster', () => {
  const handle = useTestCluster();
  const feeds: LiveFeed[] = [];
  const loads: Array<() => Promise<void>> = [];
  /** Nodes a test killed: restarted after it, and back as linked replicas, for the next test. */
  const killed = new Set<number>();
  /** Nodes restarted by this file: a replica just restarted may not be elected at once. */
  const restarted = new Set<number>();
  afterEach(async () => {
    for (const stop of loads.splice(0)) await stop();
    for (const feed of feeds.splice(0)) await feed.stop();
    for (const port of killed) {
      killed.delete(port);
      restarted.add(port);
      await handle.cluster.restart(port);
      await waitFor(
        `${port} back as a linked replica`,
        async () => {
          const self = (await handle.cluster.topology()).find((n) => n.port === port);
          if (self?.role !== 'replica' || self.failing) return false;
          const info = await admin(port)
            .info('replication')
            .catch(() => '');
          return info.includes('master_link_status:up');
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      await handle.cluster.awaitHealthy();
    }
  }, 90_000);

  async function kill(port: number): Promise<number> {
    killed.add(port);
    await handle.cluster.kill(port);
    return handle.cluster.awaitPromotion(port);
  }

  /** A started feed on a cluster client of its own, with its engine and captured log. */
  async function startFeed(
    options: Partial<Omit<LiveFeedOptions, 'engine'>> = {},
    clientOptions: ClusterOptions = {},
  ) {
    const client = handle.client(clientOptions);
    const engine = new Ringmaster(client as unknown as Redis, { prefix: PREFIX });
    const { logger, lines } = captureLogger();
    const feed = new LiveFeed({
      engine,
      // Safety re-reads a minute away: a change that arrives came by notification.
      resyncIntervalMs: 60_000,
      pollIntervalMs: 60_000,
      topologyIntervalMs: 500,
      logger,
      ...options,
    });
    feeds.push(feed);
    await feed.start();
    return { feed, engine, client, lines };
  }

  /** Masters serving slots (a node just demoted by a failover may still look a slotless master). */
  const masters = async (): Promise<ClusterNodeInfo[]> =>
    (await handle.cluster.topology()).filter(
      (n) => n.role === 'master' && !n.failing && n.slots.length > 0,
    );

  /**
   * A master whose replica has run since the cluster started: a replica restarted by an earlier
   * test is sometimes not elected within 30 s when its new master is killed. Waited for: just
   * after an earlier test's failover the nodes' views of each other are still settling (a
   * replica read as failing, or not yet under its new master).
   */
  async function steadyMaster(): Promise<number> {
    const master = await waitFor(
      'a master with a replica that was never restarted',
      async () => {
        const nodes = await handle.cluster.topology();
        return (await masters()).find((m) =>
          nodes.some((n) => n.masterId === m.id && !n.failing && !restarted.has(n.port)),
        );
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    return master.port;
  }

  /** A queue name whose slot the master at `port` serves. */
  async function queueOn(port: number, stem = 'live'): Promise<string> {
    for (;;) {
      const name = queueName(stem);
      if ((await handle.cluster.ownerOf(`{${name}}`)) === port) return name;
    }
  }

  /** Events until a RESYNC; any before it must be CHANGEs (of a busy queue). */
  async function untilResync(reader: Reader<RingChange>, timeoutMs = 15_000): Promise<RingChange> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = await reader.next(Math.max(1, deadline - Date.now()));
      if (event.reason === 'RESYNC') return event;
      expect(event.reason).toBe('CHANGE');
    }
  }

  /** Events until the ring holds `group`. */
  async function untilOnRing(reader: Reader<RingChange>, group: string): Promise<RingChange> {
    for (;;) {
      const event = await reader.next();
      if (event.ring.includes(group)) return event;
    }
  }

  /**
   * Keep queue `name` busy until stopped (stopped after the test at the latest): enqueue to
   * three groups and claim + complete, so the ring rotates. Calls failing while a master is
   * down or a slot moves are counted and retried.
   */
  function keepBusy(engine: Ringmaster, name: string) {
    const q = engine.queue(name);
    let running = true;
    let calls = 0;
    let failed = 0;
    const loop = (async () => {
      for (let i = 0; running; i++) {
        try {
          await q.enqueue(`w${i % 3}`);
          const job = await q.claim();
          if (job !== null) await q.complete(job.id, job.token as string);
          calls++;
        } catch {
          failed++;
          await sleep(50);
        }
        await sleep(5);
      }
    })();
    const stop = async () => {
      running = false;
      await loop;
    };
    loads.push(stop);
    return { stop, figures: () => ({ calls, failed }) };
  }

  /** One admin connection per node, for the test's own questions. */
  const admins = new Map<number, Redis>();
  function admin(port: number): Redis {
    let connection = admins.get(port);
    if (connection === undefined || connection.status === 'end') {
      connection = handle.cluster.node(port);
      admins.set(port, connection);
    }
    return connection;
  }

  /** `CONFIG GET notify-keyspace-events` of the node at `port`. */
  async function flagsOf(port: number): Promise<string> {
    const reply = (await admin(port).config('GET', 'notify-keyspace-events')) as string[];
    return reply[1] ?? '';
  }

  /**
   * Watch a busy queue on one master with three ring subscribers and one subscriber of a group
   * the load never touches (paused), run `move` (it moves the queue's slot to another master
   * and returns that master's port), and check that every subscriber of the moved watch gets a
   * RESYNC, and that changes arrive again from the new owner by notification.
   */
  async function movedWatchResyncs(
    label: string,
    move: (from: number, name: string) => Promise<number>,
    during: (feed: LiveFeed) => Promise<void> = async () => {},
  ) {
    const { feed, engine, lines } = await startFeed();
    const from = await steadyMaster();
    const name = await queueOn(from, 'busy');
    const q = engine.queue(name);
    await q.enqueue('quiet');
    await q.pause('quiet');
    const rings = [0, 1, 2].map(() => new Reader(feed.ringChanges(name)));
    const group = new Reader(feed.groupChanges(name, 'quiet'));
    for (const ring of rings) expect(await ring.next()).toMatchObject({ reason: 'SNAPSHOT' });
    expect(await group.next()).toMatchObject({ id: 'quiet', paused: true, pending: 1 });
    const load = keepBusy(engine, name);
    // Busy: the ring changes, and the change comes by notification.
    for (const ring of rings) expect((await ring.next()).reason).toBe('CHANGE');
    group.pull();

    // Taken as they arrive, from the start of the move, for the figures.
    const t0 = performance.now();
    const since = () => Math.round(performance.now() - t0);
    const resynced = Promise.all(rings.map((ring) => untilResync(ring, 60_000).then(since)));
    // Nothing changes the group: only a forced read (the RESYNC) sends it.
    const groupSent = group.next(60_000).then((info) => ({ info, ms: since() }));
    resynced.catch(() => {});
    groupSent.catch(() => {});
    const to = await move(from, name);
    const moveMs = since();
    expect(to).not.toBe(from);
    expect(await handle.cluster.ownerOf(`{${name}}`)).toBe(to);
    await during(feed);

    const resyncMs = await resynced;
    const { info, ms: groupMs } = await groupSent;
    expect(info).toMatchObject({ id: 'quiet', paused: true, pending: 1 });
    await waitFor('every master subscribed', () => feed.subscribed, { timeoutMs: 15_000 });
    expect(feed.stats().subscribers).toBe(3);
    expect(feed.mode).toBe('notifications');

    await load.stop();
    expect(load.figures().calls).toBeGreaterThan(0);
    console.info(
      `[cluster-feed] ${label} ${JSON.stringify({ moveMs, resyncMs, groupMs, ...load.figures() })}`,
    );
    // The safety re-read is a minute away: the new owner's notification delivers this.
    await q.enqueue('fresh');
    for (const ring of rings) {
      const event = await untilOnRing(ring, 'fresh');
      expect(event.reason).toBe('CHANGE');
    }
    return { feed, lines, from, to };
  }

  it('hears ring changes of queues on each of the 3 masters, one subscriber per master', async () => {
    const { feed, engine } = await startFeed();
    expect(feed.mode).toBe('notifications');
    expect(feed.subscribed).toBe(true);
    expect(feed.stats().subscribers).toBe(3);
    for (const master of await masters()) {
      const name = await queueOn(master.port);
      const q = engine.queue(name);
      await q.enqueue('a');
      const ring = new Reader(feed.ringChanges(name));
      expect(await ring.next()).toMatchObject({ ring: ['a'], reason: 'SNAPSHOT' });
      await q.enqueue('b');
      expect(await ring.next()).toMatchObject({ ring: ['a', 'b'], added: ['b'], reason: 'CHANGE' });
      const group = new Reader(feed.groupChanges(name, 'b'));
      expect(await group.next()).toMatchObject({ id: 'b', pending: 1 });
      await q.enqueue('b');
      expect(await group.next()).toMatchObject({ id: 'b', pending: 2 });
    }
  });

  it('follows a job on each of the 3 masters: its hash events come from the master of its slot', async () => {
    const { feed, engine } = await startFeed();
    for (const master of await masters()) {
      const name = await queueOn(master.port, 'job');
      const q = engine.queue(name);
      const { id } = await q.enqueue('g', null, { maxAttempts: 1 });
      const job = new Reader(feed.jobChanges(name, id));
      expect(await job.next()).toMatchObject({ id, state: 'PENDING' });
      const claimed = await q.claim();
      expect(await job.next()).toMatchObject({ id, state: 'ACTIVE' });
      await q.retry(id, claimed?.token as string, 'failed');
      expect(await job.next()).toMatchObject({ id, state: 'DEAD' });
      expect(await job.result()).toEqual({ done: true, value: undefined });
    }
    expect(feed.stats()).toMatchObject({ watches: 0, channels: 0 });
  });

  it('sets notify-keyspace-events on all 6 nodes, proves it per master, and re-applies it where lost', async () => {
    const nodes = await handle.cluster.topology();
    expect(nodes).toHaveLength(6);
    for (const node of nodes) {
      await admin(node.port).config('SET', 'notify-keyspace-events', '');
    }
    const execs = async (port: number) =>
      Number(/cmdstat_exec:calls=(\d+)/.exec(await admin(port).info('commandstats'))?.[1] ?? 0);
    const { feed, engine, lines } = await startFeed({
      canaryIntervalMs: 100,
      canaryTimeoutMs: 500,
    });
    for (const node of nodes) expect(missingFlags(await flagsOf(node.port))).toBe('');
    expect(feed.mode).toBe('notifications');

    // Each master's canary writes its own keys on that master (only the canary sends EXEC), and
    // is heard there.
    const current = await masters();
    const before = await Promise.all(current.map((m) => execs(m.port)));
    await waitFor('canary rounds on every master', async () => {
      const now = await Promise.all(current.map((m) => execs(m.port)));
      return now.every((n, i) => n >= (before[i] as number) + 2);
    });
    expect(lines.filter((l) => /cannot check/.test(String(l.msg)))).toEqual([]);
    expect(feed.mode).toBe('notifications');
    // Each replica's config is applied, and said, once at start (the topology's first read and
    // start() both ask for it: one CONFIG round per replica, not two).
    const replicaLines = lines
      .filter((l) => /configured on a replica/.test(String(l.msg)))
      .map((l) => l.node)
      .sort();
    const replicaNodes = nodes
      .filter((n) => n.role === 'replica')
      .map((n) => `127.0.0.1:${n.port}`)
      .sort();
    expect(replicaLines).toEqual(replicaNodes);

    // Lost under the live feed: on one master (its canary notices, re-applies, and its watchers
    // are resynced) and on a replica of another (re-applied at the next topology round).
    const master = current[0] as ClusterNodeInfo;
    const other = current[1] as ClusterNodeInfo;
    const replica = nodes.find((n) => n.role === 'replica' && n.masterId === other.id);
    expect(replica).toBeDefined();
    const name = await queueOn(master.port);
    const q = engine.queue(name);
    await q.enqueue('a');
    const ring = new Reader(feed.ringChanges(name));
    expect(await ring.next()).toMatchObject({ ring: ['a'], reason: 'SNAPSHOT' });
    ring.pull();
    await admin(master.port).config('SET', 'notify-keyspace-events', '');
    await admin(replica?.port as number).config('SET', 'notify-keyspace-events', '');
    await waitFor('flags back on the master and the replica', async () => {
      const [m, r] = await Promise.all([flagsOf(master.port), flagsOf(replica?.port as number)]);
      return missingFlags(m) === '' && missingFlags(r) === '';
    });
    // The flags can read back before the feed's CONFIG SET reply has been handled and logged.
    const warning = await waitFor('the re-apply warned about', () =>
      lines.find((l) => l.level === 40 && /changed under this server/.test(String(l.msg))),
    );
    expect(warning.node).toBe(`127.0.0.1:${master.port}`);
    expect(await ring.next()).toMatchObject({ ring: ['a'], reason: 'RESYNC' });
    await waitFor('notifications again', () => feed.mode === 'notifications');
    await q.enqueue('b');
    const event = await untilOnRing(ring, 'b');
    expect(event).toMatchObject({ ring: ['a', 'b'], added: ['b'] });
  });

  it('nodes that refuse CONFIG: the feed polls, says which flags to set, and goes back to notifications once they are set', async () => {
    const nodes = await handle.cluster.topology();
    const user = 'feed-no-config';
    const password = 'a-password-for-the-test';
    try {
      for (const node of nodes) {
        const redis = admin(node.port);
        await redis.acl('SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all', '-config');
        await redis.config('SET', 'notify-keyspace-events', '');
      }
      const { feed, engine, lines } = await startFeed(
        { pollIntervalMs: 200, canaryIntervalMs: 100, canaryTimeoutMs: 300 },
        { redisOptions: { username: user, password } },
      );
      expect(feed.mode).toBe('polling');
      const current = await masters();
      // Each master's subscriber tried, was refused, and its canary went unheard.
      const refused = new Set(
        lines
          .filter((l) => /CONFIG is refused by this Redis/.test(String(l.msg)))
          .map((l) => l.node),
      );
      expect(refused).toEqual(new Set(current.map((m) => `127.0.0.1:${m.port}`)));
      expect(
        lines.some(
          (l) => l.level === 40 && /set notify-keyspace-events to include/.test(String(l.msg)),
        ),
      ).toBe(true);
      const name = await queueOn(current[0]?.port as number);
      const q = engine.queue(name);
      await q.enqueue('a');
      const ring = new Reader(feed.ringChanges(name));
      expect(await ring.next()).toMatchObject({ ring: ['a'], reason: 'SNAPSHOT' });
      // No notification is published: the poll delivers it.
      await q.enqueue('b');
      expect(await untilOnRing(ring, 'b')).toMatchObject({ ring: ['a', 'b'] });

      // The operator sets the flags: every canary is heard, the feed is back on notifications.
      for (const node of nodes) {
        await admin(node.port).config('SET', 'notify-keyspace-events', 'KEA');
      }
      await waitFor('notifications again', () => feed.mode === 'notifications');
    } finally {
      for (const node of nodes) {
        await admin(node.port).config('SET', 'notify-keyspace-events', 'KEA');
        await admin(node.port).acl('DELUSER', user);
      }
    }
  });

  it('SIGKILL of the master of a busy watched queue: down until the promotion, then RESYNC and events from the new master', async () => {
    const { lines, from } = await movedWatchResyncs(
      'sigkill',
      (port) => kill(port),
      async (feed) => {
        // The promotion was awaited; the feed notices it within its fast topology period.
        await waitFor('every master subscribed again', () => feed.subscribed, {
          timeoutMs: 15_000,
        });
      },
    );
    expect(lines.some((l) => l.msg === 'keyspace subscriber disconnected; reconnecting')).toBe(
      true,
    );
    expect(
      lines.some((l) => l.node === `127.0.0.1:${from}` && /no longer a master/.test(String(l.msg))),
    ).toBe(true);
  }, 90_000);

  it('reports subscribed false while a master is down, true again once its replica is promoted', async () => {
    const { feed } = await startFeed();
    const port = await steadyMaster();
    expect(feed.subscribed).toBe(true);
    killed.add(port);
    const t0 = performance.now();
    await handle.cluster.kill(port);
    await waitFor('the feed to see the master down', () => !feed.subscribed);
    const downMs = Math.round(performance.now() - t0);
    const promoted = await handle.cluster.awaitPromotion(port);
    const promotedMs = Math.round(performance.now() - t0);
    await waitFor('every master subscribed again', () => feed.subscribed, { timeoutMs: 15_000 });
    const upMs = Math.round(performance.now() - t0);
    console.info(`[cluster-feed] subscribed ${JSON.stringify({ downMs, promotedMs, upMs })}`);
    expect(feed.stats().subscribers).toBe(3);
    // The promoted replica's subscriber is one of them: it hears its master's keys.
    const engine = new Ringmaster(handle.client() as unknown as Redis, { prefix: PREFIX });
    const name = await queueOn(promoted);
    const ring = new Reader(feed.ringChanges(name));
    expect(await ring.next()).toMatchObject({ ring: [], reason: 'SNAPSHOT' });
    await engine.queue(name).enqueue('a');
    expect(await ring.next()).toMatchObject({ ring: ['a'], reason: 'CHANGE' });
  }, 90_000);

  it('graceful CLUSTER FAILOVER of the master of a busy watched queue: RESYNC and events from the new master', async () => {
    await movedWatchResyncs('failover', (port) => handle.cluster.failover(port));
  }, 90_000);

  it("moving a busy watched queue's slot to another master: RESYNC and events from the new owner", async () => {
    await movedWatchResyncs('slot-move', async (from, name) => {
      const target = (await masters()).find((m) => m.port !== from) as ClusterNodeInfo;
      const slot = await handle.cluster.keySlot(`{${name}}`);
      await handle.cluster.migrateSlot(slot, target.port, { keysPerMigrate: 10 });
      return target.port;
    });
  }, 90_000);

  it('holds one subscriber per master and the command client, however many watch', async () => {
    const { feed } = await startFeed();
    const ports = (await masters()).map((m) => m.port);
    /** Connections on each master (CLIENT LIST): all of them, and those subscribed. */
    const sample = async () =>
      Promise.all(
        ports.map(async (port) => {
          const lines = ((await admin(port).client('LIST')) as string).trim().split('\n');
          return {
            all: lines.length,
            pubsub: lines.filter((line) => /\bsub=[1-9]/.test(line)).length,
          };
        }),
      );
    /**
     * Two samples 300 ms apart that agree: a connection that lives a few milliseconds (the
     * cluster client re-reading its slot map, the harness asking a node) is not counted.
     */
    const census = async () => {
      let last = JSON.stringify(await sample());
      for (;;) {
        await sleep(300);
        const now = JSON.stringify(await sample());
        if (now === last) return JSON.parse(now) as Awaited<ReturnType<typeof sample>>;
        last = now;
      }
    };
    const before = await census();
    expect(before.map((c) => c.pubsub)).toEqual([1, 1, 1]);
    const readers: Reader<unknown>[] = [];
    for (let i = 0; i < 100; i++) {
      const name = queueName('many');
      readers.push(new Reader(feed.ringChanges(name)));
      readers.push(new Reader(feed.groupChanges(name, 'g')));
    }
    for (const reader of readers) await reader.next();
    expect(feed.stats()).toMatchObject({ watches: 200, subscribers: 3 });
    expect(feed.stats().channels).toBeGreaterThanOrEqual(500);
    // A short-lived connection that outlives two samples (the harness, the cluster client
    // re-reading its slot map on a loaded machine) is not one per watcher: wait it out.
    let after = await census();
    await waitFor(
      'as many connections on each master as before the 200 watches',
      async () => {
        after = await census();
        return JSON.stringify(after) === JSON.stringify(before);
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    ).catch(() => undefined);
    expect(after).toEqual(before);
    // The channels really are spread over the masters, each on its own subscriber.
    const channels = await Promise.all(
      ports.map(
        async (port) =>
          ((await admin(port).pubsub('CHANNELS', '__keyspace@0__:pst:{many-*')) as string[]).length,
      ),
    );
    expect(channels.every((n) => n > 0)).toBe(true);
    expect(channels.reduce((a, b) => a + b, 0)).toBe(feed.stats().channels);
  });
});
