/**
 * Queue names placed on chosen masters of a test cluster: a queue's keys share the slot of its
 * name (the `{Q}` hash tag), so a name is picked per master by trying stems until its slot is one
 * that master serves. Lets a test cover every master, or put a queue on the one it will kill.
 */
import { keySlot } from '../../src/lanes/internal.js';
import type { ClusterNodeInfo, TestCluster } from './cluster.js';
import { uniqueQueueName } from './lanes.js';

/** The master (port) serving `slot` in `nodes`. */
export function ownerPort(nodes: readonly ClusterNodeInfo[], slot: number): number | undefined {
  return nodes.find(
    (n) => n.role === 'master' && !n.failing && n.slots.some(([a, b]) => slot >= a && slot <= b),
  )?.port;
}

/** A fresh queue name whose slot the master at `port` serves now. */
export async function queueOn(cluster: TestCluster, port: number, stem = 'q'): Promise<string> {
  const nodes = await cluster.topology();
  for (let i = 0; i < 10_000; i++) {
    const name = uniqueQueueName(stem);
    if (ownerPort(nodes, keySlot(name)) === port) return name;
  }
  throw new Error(`no queue name found on the master at ${port}`);
}

/** One fresh queue per master, each with the port of the master serving it, in port order. */
export async function queuesOnEveryMaster(
  cluster: TestCluster,
  stem = 'q',
): Promise<{ port: number; queue: string }[]> {
  const masters = (await cluster.topology())
    .filter((n) => n.role === 'master' && !n.failing && n.slots.length > 0)
    .map((n) => n.port)
    .sort((a, b) => a - b);
  return Promise.all(
    masters.map(async (port) => ({ port, queue: await queueOn(cluster, port, stem) })),
  );
}
