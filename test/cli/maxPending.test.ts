/**
 * `ringmaster max-pending` against a real server (docs/cli.md; DESIGN.md §3 "Backlog bounds"):
 * a group's bound and the queue's default set and cleared, checked against the engine's state;
 * usage errors change nothing.
 */
import { describe, expect, it } from 'vitest';
import { uniqueQueueName } from '../support/lanes.js';
import { useTestServer } from '../support/server.js';
import { runCli, runCliOk } from './support.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
const env = () => ({ RINGMASTER_URL: api.endpoint });

describe('max-pending', () => {
  it('sets and clears a group’s bound and the queue’s default', async () => {
    const q = uniqueQueueName('cli');
    const e = api.server.engine.queue(q);
    await e.enqueue('a', 1);
    const set = await runCliOk(['max-pending', '-q', q, '-g', 'a', '3'], env());
    expect(set.stdout).toContain(`backlog bound of a in ${q} set to 3`);
    expect(set.stdout).toMatch(/^max pending\s+3$/m);
    expect((await e.group('a')).maxPending).toBe(3);
    const again = await runCliOk(['max-pending', '-q', q, '-g', 'a', '3'], env());
    expect(again.stdout).toContain('already 3 (unchanged)');
    const json = JSON.parse(
      (await runCliOk(['max-pending', '-q', q, '-g', 'a', '1', '--json'], env())).stdout,
    );
    expect(json.setMaxPending).toMatchObject({ id: 'a', maxPending: 1, pending: 1 });
    await expect(e.enqueue('a', 2)).rejects.toMatchObject({ code: 'GROUP_FULL' });
    const cleared = await runCliOk(['max-pending', '-q', q, '-g', 'a', '--clear'], env());
    expect(cleared.stdout).toContain(`backlog bound of a in ${q} cleared`);
    expect((await e.group('a')).maxPending).toBeNull();
    const d = await runCliOk(['max-pending', '-q', q, '--default', '5'], env());
    expect(d.stdout).toBe(`default backlog bound of ${q} set to 5\n`);
    expect(await e.defaultMaxPending()).toBe(5);
    await runCliOk(['max-pending', '-q', q, '--default', 'none'], env());
    expect(await e.defaultMaxPending()).toBeNull();
  });

  it('refuses a bound out of range, no target, or a bound with --clear; nothing changed', async () => {
    const q = uniqueQueueName('cli');
    const e = api.server.engine.queue(q);
    for (const args of [
      ['max-pending', '-q', q, '-g', 'a', '-1'],
      ['max-pending', '-q', q, '-g', 'a', '1000000001'],
      ['max-pending', '-q', q, '3'],
      ['max-pending', '-q', q, '-g', 'a', '--default', '3'],
      ['max-pending', '-q', q, '-g', 'a', '3', '--clear'],
      ['max-pending', '-q', q, '-g', 'a'],
    ]) {
      const result = await runCli(args, env());
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(1);
      expect(result.stderr).toMatch(/^ringmaster: /);
    }
    expect((await e.group('a')).maxPending).toBeNull();
    expect(await e.defaultMaxPending()).toBeNull();
  });
});
