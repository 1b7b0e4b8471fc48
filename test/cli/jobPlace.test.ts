/**
 * `ringmaster job <id>` says where a job stands (docs/cli.md, DESIGN.md §4.2 "Where a job
 * stands"): run as a process against a real server, its lines checked against the engine's
 * reads of the same job and group.
 */
import { describe, expect, it } from 'vitest';
import { uniqueQueueName } from '../support/lanes.js';
import { useTestServer } from '../support/server.js';
import { runCliOk } from './support.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });

const cli = (args: string[]) => runCliOk(args, { RINGMASTER_URL: api.endpoint });

describe('ringmaster job: where it stands', () => {
  it('a pending job: its reason, its place in its lane and its estimated start', async () => {
    const q = uniqueQueueName('cli-place');
    const e = api.server.engine.queue(q);
    await e.setLimit('acme', 1);
    await e.enqueue('acme', 1);
    await e.enqueue('acme', 2);
    const waiting = await e.enqueue('acme', 3);
    await e.claim({ leaseMs: 600_000 });
    const out = (await cli(['job', waiting.id, '-q', q])).stdout;
    expect(out).toContain(`job ${waiting.id} of acme in ${q}: PENDING\n`);
    expect(out).toContain(
      'reason: 1 ahead of it in its lane (2 pending); its group is at its limit (1 of 1 in flight): it re-joins the ring when one finishes\n',
    );
    const place = await e.jobPlace(waiting.id);
    expect(place?.position).toBe(1);
    expect(out).toContain('position: 1 ahead of it in its lane\n');
    // No completion yet: nothing to estimate from.
    expect(out).toContain('estimated start: -\n');
    const json = JSON.parse((await cli(['job', waiting.id, '-q', q, '--json'])).stdout);
    expect(json.queue.job).toMatchObject({ position: 1, estimatedStartAt: null });
    expect(json.queue.job.reason).toMatch(/^1 ahead of it in its lane/);
  });

  it('an estimate once its group has history; a job not pending says its state only', async () => {
    const q = uniqueQueueName('cli-place');
    const e = api.server.engine.queue(q);
    for (let i = 0; i < 3; i++) {
      await e.enqueue('acme', i);
      const job = await e.claim();
      await new Promise((resolve) => setTimeout(resolve, 5));
      await e.complete(job?.id as string, job?.token as string);
    }
    const waiting = await e.enqueue('acme', 'w');
    await e.workerHeartbeat({ id: 'w', heartbeatMs: 60_000 });
    const out = (await cli(['job', waiting.id, '-q', q])).stdout;
    const at = /\nestimated start: (\S+)\n/.exec(out)?.[1];
    expect(Number.isNaN(Date.parse(at ?? ''))).toBe(false);
    expect(out).toContain(
      'reason: first in its lane, and its group is next to be served: it runs next\n',
    );
    const done = await e.claim();
    await e.complete(waiting.id, done?.token as string);
    const finished = (await cli(['job', waiting.id, '-q', q])).stdout;
    expect(finished).toMatch(/\nreason: completed: it finished at \S+Z\n/);
    expect(finished).not.toContain('position:');
    expect(finished).not.toContain('estimated start:');
  });

  it('a debounced job shows its debounce key; a job without one no line', async () => {
    const q = uniqueQueueName('cli-place');
    const e = api.server.engine.queue(q);
    const job = await e.enqueue('acme', 1, { debounce: { key: 'reindex-7', windowMs: 60_000 } });
    const plain = await e.enqueue('acme', 2);
    expect((await cli(['job', job.id, '-q', q])).stdout).toContain('debounce key: reindex-7\n');
    expect((await cli(['job', plain.id, '-q', q])).stdout).not.toContain('debounce key');
  });
});
