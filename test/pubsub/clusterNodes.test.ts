/**
 * How the live feed reads a Redis Cluster's topology from `CLUSTER NODES` (src/pubsub/
 * clusterNodes.ts): replicas included (CLUSTER SLOTS leaves out one whose offset is still 0),
 * slots being migrated counted for the node that still serves them, and views of several nodes
 * merged by config epoch, so a master restarted from its nodes.conf, still claiming its old
 * slots, loses them to the replica promoted in its place.
 */
import { describe, expect, it } from 'vitest';
import { mergeViews, parseClusterView } from '../../src/pubsub/clusterNodes.js';

const key = (address: string) => address;

/** A restarted old master (30001, epoch 1) that has not heard yet of its replacement (30004). */
const STALE = `\
a1 127.0.0.1:30001@40001 myself,master - 0 0 1 connected 0-5460
b2 127.0.0.1:30002@40002 master - 0 1 2 connected 5461-10922 [5461->-c3]
c3 127.0.0.1:30003@40003 master - 0 1 3 connected 10923-16383
d4 127.0.0.1:30004@40004 slave a1 0 1 7 connected
e5 127.0.0.1:30005@40005 slave b2 0 1 2 connected
f6 127.0.0.1:30006@40006 slave c3 0 1 3 disconnected
`;

/** The same cluster as the promoted replica sees it. */
const FRESH = `\
a1 127.0.0.1:30001@40001 slave d4 0 1 1 connected
b2 127.0.0.1:30002@40002 master - 0 1 2 connected 5461-10922
c3 127.0.0.1:30003@40003 master - 0 1 3 connected 10923-16383
d4 127.0.0.1:30004@40004 myself,master - 0 0 7 connected 0-5460
e5 127.0.0.1:30005@40005 slave b2 0 1 2 connected
f6 127.0.0.1:30006@40006 slave,fail c3 0 1 3 disconnected
`;

describe('the cluster topology the feed reads', () => {
  it('parses masters with their slots and epochs, replicas, and skips migration markers', () => {
    const view = parseClusterView(STALE, key);
    expect(view.claims).toEqual([
      { key: '127.0.0.1:30001', epoch: 1, ranges: [[0, 5460]] },
      { key: '127.0.0.1:30002', epoch: 2, ranges: [[5461, 10922]] },
      { key: '127.0.0.1:30003', epoch: 3, ranges: [[10923, 16383]] },
    ]);
    expect([...view.replicas].sort()).toEqual([
      '127.0.0.1:30004',
      '127.0.0.1:30005',
      '127.0.0.1:30006',
    ]);
    // A replica flagged failing is not one to configure.
    expect([...parseClusterView(FRESH, key).replicas].sort()).toEqual([
      '127.0.0.1:30001',
      '127.0.0.1:30005',
    ]);
  });

  it('gives each slot to the claim with the highest config epoch, whichever view comes first', () => {
    for (const views of [
      [STALE, FRESH],
      [FRESH, STALE],
    ]) {
      const topology = mergeViews(views.map((text) => parseClusterView(text, key)));
      expect(topology.owners[0]).toBe('127.0.0.1:30004');
      expect(topology.owners[5460]).toBe('127.0.0.1:30004');
      expect(topology.owners[5461]).toBe('127.0.0.1:30002');
      expect(topology.owners[16383]).toBe('127.0.0.1:30003');
      expect([...topology.masters].sort()).toEqual([
        '127.0.0.1:30002',
        '127.0.0.1:30003',
        '127.0.0.1:30004',
      ]);
      // The old master is a replica now in one view and a stale master in the other: a replica.
      expect(topology.replicas.has('127.0.0.1:30001')).toBe(true);
      expect(topology.replicas.has('127.0.0.1:30004')).toBe(false);
    }
  });

  it('maps announced addresses through the key function (a natMap)', () => {
    const view = parseClusterView(FRESH, (address) => address.replace('127.0.0.1', 'redis-a'));
    expect(view.claims[0]?.key).toBe('redis-a:30002');
  });
});
