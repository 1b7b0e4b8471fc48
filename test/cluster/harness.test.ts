/**
 * The test cluster itself (test/support/cluster.ts): it starts 3 masters + 3 replicas, moves a
 * slot with its keys, fails a master over gracefully and by SIGKILL. The cluster tests of the
 * engine, the API and the feed rely on each of these working.
 */
import { describe, expect, it } from 'vitest';
import { useTestCluster } from '../support/cluster.js';

describe('test cluster', () => {
  const handle = useTestCluster();

  it('starts 3 masters with a replica each, covering every slot', async () => {
    const nodes = await handle.cluster.topology();
    const masters = nodes.filter((n) => n.role === 'master');
    expect(masters).toHaveLength(3);
    expect(nodes.filter((n) => n.role === 'replica')).toHaveLength(3);
    const covered = masters.flatMap((m) => m.slots).reduce((sum, [a, b]) => sum + b - a + 1, 0);
    expect(covered).toBe(16_384);
    const client = handle.client();
    await client.set('{h}:k', 'v');
    expect(await client.get('{h}:k')).toBe('v');
  });

  it('moves a slot with its keys to another master', async () => {
    const { cluster } = handle;
    const client = handle.client();
    for (let i = 0; i < 20; i++) await client.set(`{move}:${i}`, String(i));
    const slot = await cluster.keySlot('{move}:0');
    const from = await cluster.ownerOf('{move}:0');
    const to = (await cluster.topology()).find((n) => n.role === 'master' && n.port !== from);
    let moved = 0;
    await cluster.migrateSlot(slot, to?.port as number, {
      afterEachKey: async () => {
        moved++;
      },
    });
    expect(moved).toBe(20);
    expect(await cluster.ownerOf('{move}:0')).toBe(to?.port);
    expect(await client.get('{move}:19')).toBe('19');
  });

  it('fails a master over gracefully, and after SIGKILL', async () => {
    const { cluster } = handle;
    const client = handle.client();
    await client.set('{fo}:k', 'before');
    const first = await cluster.ownerOf('{fo}:k');
    const second = await cluster.failover(first);
    expect(second).not.toBe(first);
    expect(await cluster.ownerOf('{fo}:k')).toBe(second);
    expect(await client.get('{fo}:k')).toBe('before');
    // The old master is now the replica: kill the new master and the old one takes over again.
    await cluster.node(second).wait(1, 2_000);
    await cluster.kill(second);
    const third = await cluster.awaitPromotion(second);
    expect(third).not.toBe(second);
    expect(await cluster.node(third).get('{fo}:k')).toBe('before');
    await cluster.restart(second);
    await cluster.awaitHealthy();
  });
});
