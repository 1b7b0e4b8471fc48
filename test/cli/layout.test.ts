/**
 * `ringmaster upgrade-layout` against a real server (docs/cli.md; DESIGN.md §2 "Upgrading in
 * place"): it calls `upgradeQueueLayout` until the queue is done, a progress line a call and a
 * last line; `--json` the sums; a queue marked with another layout is refused (exit 2), a bad
 * `--batch` a usage error (exit 1), nothing sent.
 */
import { describe, expect, it } from 'vitest';
import { uniqueQueueName } from '../support/lanes.js';
import { writeOldLayout } from '../support/oldLayout.js';
import { useTestServer } from '../support/server.js';
import { runCli, runCliOk } from './support.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
const env = (extra: Record<string, string> = {}) => ({ RINGMASTER_URL: api.endpoint, ...extra });

describe('upgrade-layout', () => {
  it('upgrades a queue of the layout before, a line per call, then where it stands', async () => {
    // 250 ids at 1 a step, 100 steps a call: three calls.
    const q = await writeOldLayout(api.server.engine.queue(uniqueQueueName('old')), 250);
    const { stdout } = await runCliOk(
      ['upgrade-layout', '--batch', '1'],
      env({ RINGMASTER_QUEUE: q.name }),
    );
    expect(stdout).toBe(
      [
        'ids 1–100 of 250 visited, 2 payloads moved by this run',
        'ids 1–200 of 250 visited, 2 payloads moved by this run',
        'ids 1–250 of 250 visited, 2 payloads moved by this run',
        // The closing repair: the registry's last-seen and a ranking, which the layout before lacked.
        `queue ${q.name} is of job layout 2: 2 payloads moved by this run; repaired REGISTRY 1, RANK 1`,
        '',
      ].join('\n'),
    );
    expect(await q.redis.hgetall(q.keys.payloads)).toEqual({ 1: '{"old":1}', 2: '{"old":2}' });
    const again = await runCliOk(['upgrade-layout', '-q', q.name], env());
    expect(again.stdout).toBe(`queue ${q.name} is of job layout 2 already\n`);
  });

  it('--json prints the calls’ sums', async () => {
    const q = await writeOldLayout(api.server.engine.queue(uniqueQueueName('old')));
    const { stdout } = await runCliOk(['upgrade-layout', '-q', q.name, '--json'], env());
    expect(JSON.parse(stdout)).toEqual({
      upgradeQueueLayout: {
        done: true,
        layout: '2',
        moved: 2,
        visitedTo: 2,
        lastId: 2,
        steps: 1,
        repair: { findings: [{ kind: 'REGISTRY' }, { kind: 'RANK' }] },
      },
    });
  });

  it('exits 2 on a queue marked with another layout, 1 on a bad --batch', async () => {
    const q = await writeOldLayout(api.server.engine.queue(uniqueQueueName('old')));
    await q.redis.hset(q.keys.settings, 'layout', '3');
    const refused = await runCli(['upgrade-layout', '-q', q.name], env());
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /^ringmaster: queue \S+ is marked with job layout 3 .* \[LAYOUT_MISMATCH\]\n$/,
    );
    const bad = await runCli(['upgrade-layout', '-q', q.name, '--batch', '10001'], env());
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/change --batch: must be a whole number 1\.\.10,000/);
    expect(await q.redis.exists(q.keys.payloads)).toBe(0);
  });
});
