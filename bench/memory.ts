/**
 * Section 5 — memory (the server's RSS with 1,000 subscribers comes from section 4):
 * - Redis bytes per idle group with a limit, at 100,000 groups: INFO memory `used_memory` after
 *   setLimit on that many new groups (no jobs), minus before, ÷ groups. Such a group is a field
 *   of `glimit` and a member of `groups`;
 * - Redis bytes per pending job with a 100-byte payload (spread over 1,000 groups): the job hash
 *   plus its lane entry; and the same for BullMQ and GroupMQ, in the same run.
 */
import { Queue as BullQueue } from 'bullmq';
import { Queue as GroupQueue } from 'groupmq';
import { Ringmaster } from '../src/lanes/index.js';
import { type BenchRedis, fresh, usedMemory } from './redis.js';
import { pool, progress } from './util.js';

export interface MemoryOptions {
  /** Idle groups with a limit (the 100,000). */
  groups: number;
  /** Pending jobs for the per-job figure. */
  jobs: number;
}

export interface MemoryResult {
  groups: number;
  bytesPerIdleGroup: number;
  jobs: number;
  payloadBytes: number;
  bytesPerPendingJob: { ringmaster: number; bullmq: number; groupmq: number };
}

const PAYLOAD = { data: 'x'.repeat(100 - '{"data":""}'.length) };
const BATCH = 1_000;
const GROUPS_FOR_JOBS = 1_000;

export async function memory(redis: BenchRedis, o: MemoryOptions): Promise<MemoryResult> {
  const payloadBytes = JSON.stringify(PAYLOAD).length;
  const conn = redis.connect({ enableAutoPipelining: true });
  try {
    progress(`memory: ${o.groups} idle groups with a limit`);
    await fresh(redis.admin);
    const queue = new Ringmaster(conn).queue('bench-memory');
    // The queue's own keys exist before the baseline, so only the groups are counted.
    await queue.setLimit('baseline', 1);
    const before = await usedMemory(redis.admin);
    await pool(o.groups, BATCH, (g) => queue.setLimit(`tenant-${g}`, 5));
    const bytesPerIdleGroup = ((await usedMemory(redis.admin)) - before) / o.groups;

    progress(`memory: ${o.jobs} pending jobs with a ${payloadBytes}-byte payload`);
    await fresh(redis.admin);
    const jobs = new Ringmaster(conn).queue('bench-memory-jobs');
    await pool(GROUPS_FOR_JOBS, BATCH, (g) => jobs.enqueue(`tenant-${g}`, PAYLOAD));
    const jobsBefore = await usedMemory(redis.admin);
    await pool(o.jobs, BATCH, (i) => jobs.enqueue(`tenant-${i % GROUPS_FOR_JOBS}`, PAYLOAD));
    const ringmaster = ((await usedMemory(redis.admin)) - jobsBefore) / o.jobs;

    await fresh(redis.admin);
    const bull = new BullQueue('bench-memory', {
      connection: { host: '127.0.0.1', port: redis.process.port, maxRetriesPerRequest: null },
    });
    await bull.add('job', PAYLOAD);
    const bullBefore = await usedMemory(redis.admin);
    for (let start = 0; start < o.jobs; start += BATCH) {
      const n = Math.min(BATCH, o.jobs - start);
      await bull.addBulk(Array.from({ length: n }, () => ({ name: 'job', data: PAYLOAD })));
    }
    const bullmq = ((await usedMemory(redis.admin)) - bullBefore) / o.jobs;
    await bull.close();

    await fresh(redis.admin);
    const group = new GroupQueue({ redis: conn, namespace: 'bench-memory' });
    await pool(GROUPS_FOR_JOBS, BATCH, (g) => group.add({ groupId: `tenant-${g}`, data: PAYLOAD }));
    const groupBefore = await usedMemory(redis.admin);
    await pool(o.jobs, BATCH, (i) =>
      group.add({ groupId: `tenant-${i % GROUPS_FOR_JOBS}`, data: PAYLOAD }),
    );
    const groupmq = ((await usedMemory(redis.admin)) - groupBefore) / o.jobs;
    await group.close();

    return {
      groups: o.groups,
      bytesPerIdleGroup,
      jobs: o.jobs,
      payloadBytes,
      bytesPerPendingJob: { ringmaster, bullmq, groupmq },
    };
  } finally {
    conn.disconnect();
  }
}
