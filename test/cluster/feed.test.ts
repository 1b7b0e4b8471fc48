/**
 * The live feed on a real Redis Cluster (3 masters + 3 replicas, test/support/cluster.ts):
 * keyspace notifications are node-local, so the feed holds one subscriber per master and routes
 * each watched queue's channels to the master that owns its slot (DESIGN.md §4.4). A failover
 * (SIGKILL or graceful) or a slot move moves the watch to the new owner, and every subscriber
 * of a moved watch gets a RESYNC; `notify-keyspace-events` is kept on every node; the server's
 * connections do not grow with watchers.
 */
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { type GroupInfo, Ringmaster } from '../../src/lanes/index.js';
import { LiveFeed, type LiveFeedOptions, type RingChange } from '../../src/pubsub/index.js';
import { missingFlags } from '../../src/pubsub/notifyConfig.js';
import { captureLogger, queueName, Reader, waitFor } from '../pubsub.support.js';
import { type ClusterNodeInfo, useTestCluster } from '../support/cluster.js';

const PREFIX = 'pst';

describe('the live feed on a Redis Cluster', () => {
  const handle = useTestCluster();
  const feeds: LiveFeed[] = [];
  const loads: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of loads.splice(0)) await stop();
    for (const feed of feeds.splice(0)) await feed.stop();
  });

  /** A started feed on a cluster client of its own, with its engine and captured log. */
  async function startFeed(options: Partial<Omit<LiveFeedOptions, 'engine'>> = {}) {
    const client = handle.client();
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

  const masters = async (): Promise<ClusterNodeInfo[]> =>
    (await handle.cluster.topology()).filter((n) => n.role === 'master' && !n.failing);

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
});
