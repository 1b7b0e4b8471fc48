/**
 * `ringmaster top`: the ring over the ringChanged subscription, redrawn in place as it changes,
 * with counts and the busiest groups; q on stdin or SIGINT quits with exit 0.
 */
import { describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import { RingChangedDocument } from '../gql/graphql.js';
import { uniqueQueueName } from '../support/lanes.js';
import { sseSubscribe } from '../support/live.js';
import { startTestServer, useTestServer } from '../support/server.js';
import { finished, SCRIPT, spawnCli, spawnCliInTerminal, stdoutUntil } from './support.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
const { redis } = api;

const engineQueue = (name: string): Queue => api.server.engine.queue(name);

/**
 * `top` on `q`, stdout a pipe. The interval is long unless given, so nothing but the first frame
 * (drawn once the ring's snapshot came) is written while the test runs.
 */
function startTop(q: string, extra: string[] = [], interval = '1h') {
  const child = spawnCli(['top', '-q', q, '--interval', interval, ...extra], {
    RINGMASTER_URL: api.endpoint,
  });
  const done = finished(child);
  return { child, done };
}

describe('top', () => {
  it('draws the ring and the busiest groups, redraws each interval, and quits on q', async () => {
    const q = uniqueQueueName('cli-top');
    const e = engineQueue(q);
    await e.enqueue('alpha');
    await e.enqueue('alpha');
    await e.setLimit('alpha', 1);
    await e.claim();
    await e.enqueue('beta');
    const { child, done } = startTop(q, [], '100ms');
    const first = await stdoutUntil(child, (text) => text.includes('ring (1, head first): beta'));
    expect(first).toContain(`queue ${q} · RUNNING`);
    expect(first).toMatch(/^groups 2 {2}on ring 1 {2}paused 0 {2}limit reached 1$/m);
    expect(first).toMatch(/^jobs {3}pending 2 {2}delayed 0 {2}active 1 {2}dead 0$/m);
    expect(first).toMatch(/busiest groups \(1 of 1 with jobs in flight\)/);
    expect(first).toMatch(/│ alpha\s+│ at limit\s+│ 1\s+│ 1\s+│ 1\s+│ no\s+│/);

    // A change of the ring is in the next interval's frame.
    await e.enqueue('gamma');
    const next = await stdoutUntil(child, (text) =>
      text.includes('ring (2, head first): beta → gamma'),
    );
    // Contract change: stdout is a pipe here, so no cursor control (log-update's ESC [ 2K,
    // ESC [ 1A, the hidden cursor) is written into it: each frame follows the last whole.
    expect(next).not.toContain('\u001b');
    expect(`${first}${next}`).toMatch(/no\s+│\n└[─┴]+┘\n\nringmaster top · /);
    // Nobody reads a hint about keys in a file: only a terminal's frame has it.
    expect(`${first}${next}`).not.toContain('q or Ctrl-C quits');
    await e.pauseQueue();
    await stdoutUntil(child, (text) => text.includes(`queue ${q} · PAUSED`));

    child.stdin.write('q');
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
  });

  it('writes to a pipe at most one frame per --interval, however often the ring changes', async () => {
    const q = uniqueQueueName('cli-top');
    const e = engineQueue(q);
    await e.enqueue('first');
    const { child, done } = startTop(q, ['--json']);
    await stdoutUntil(child, (out) => /"reason":"SNAPSHOT".*\n/.test(out));
    // The ring events the CLI is sent too: a second subscriber sees them arrive.
    const watcher = sseSubscribe(api.endpoint, RingChangedDocument, { queue: q });
    await watcher.events.next();
    for (let i = 0; i < 20; i++) await e.enqueue(`g${i}`);
    await watcher.events.until('g19 on the ring', () =>
      watcher.events.items.some((event) => event.data?.ringChanged.ring.includes('g19')),
    );
    watcher.close();
    child.stdin.write('q');
    const result = await done;
    expect(result.code).toBe(0);
    // One interval (1h) has not passed: the snapshot's frame is the only one.
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
  });

  it.skipIf(SCRIPT === null)(
    'on a terminal (raw mode, a size nobody set) draws the frame and quits on q',
    async () => {
      const q = uniqueQueueName('cli-top');
      await engineQueue(q).enqueue('tty');
      const child = spawnCliInTerminal(['top', '-q', q, '--interval', '1h'], {
        RINGMASTER_URL: api.endpoint,
      });
      const done = finished(child);
      await stdoutUntil(
        child,
        (text) => text.includes('ring (1, head first): tty') && text.includes('q or Ctrl-C quits'),
      );
      child.stdin.write('q');
      const result = await done;
      expect(result.code).toBe(0);
      // The cursor is hidden while it draws and shown again after.
      expect(result.stdout).toContain('\u001b[?25l');
      expect(result.stdout.endsWith('\u001b[?25h')).toBe(true);
    },
  );

  it('quits on SIGINT with exit 0', async () => {
    const q = uniqueQueueName('cli-top');
    await engineQueue(q).enqueue('solo');
    const { child, done } = startTop(q);
    await stdoutUntil(child, (text) => text.includes('ring (1, head first): solo'));
    child.kill('SIGINT');
    const result = await done;
    expect(result).toMatchObject({ code: 0, signal: null, stderr: '' });
  });

  it('--json writes one line of JSON per frame: the ring event and the queue read', async () => {
    const q = uniqueQueueName('cli-top');
    await engineQueue(q).enqueue('one');
    const { child, done } = startTop(q, ['--json']);
    const text = await stdoutUntil(child, (out) => /"reason":"SNAPSHOT".*\n/.test(out));
    child.stdin.write('q');
    expect((await done).code).toBe(0);
    const frames = text
      .trim()
      .split('\n')
      .map((frame) => JSON.parse(frame) as { ring: unknown; queue: { ring: string[] } });
    const last = frames.at(-1);
    expect(last?.ring).toMatchObject({ reason: 'SNAPSHOT', ring: ['one'], queueState: 'RUNNING' });
    expect(last?.queue.ring).toEqual(['one']);
  });

  it('exits 4 when the server goes away under it', async () => {
    const q = uniqueQueueName('cli-top');
    const other = await startTestServer(redis.url, { REAP_INTERVAL_MS: '86400000' });
    await other.server.engine.queue(q).enqueue('solo');
    const child = spawnCli(['top', '-q', q, '--interval', '1h'], {
      RINGMASTER_URL: other.endpoint,
    });
    const done = finished(child);
    await stdoutUntil(child, (text) => text.includes('ring (1, head first): solo'));
    await other.stop();
    const result = await done;
    expect(result.code).toBe(4);
    // The socket closes (or the next read is refused): either names the URL and what to do.
    // Off a terminal no ring event asks for a read, so the close is what it meets first.
    expect(result.stderr).toMatch(
      /^ringmaster: (the subscription to http:\/\/127\.0\.0\.1:\d+\/graphql closed|cannot reach http:\/\/127\.0\.0\.1:\d+\/graphql) \((?!\[object)[^)]+\)[^\n]*\n$/,
    );
  });

  it('names a queue never used on stderr before drawing; --json has known: false', async () => {
    const q = uniqueQueueName('cli-top-ordrs');
    const { child, done } = startTop(q);
    await stdoutUntil(child, (text) => text.includes('ring (0, head first)'));
    child.stdin.write('q');
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      `ringmaster: queue "${q}" is not known to this Redis (no job or setting was ever written to it): check --queue / RINGMASTER_QUEUE\n`,
    );
    const json = startTop(q, ['--json']);
    const line = await stdoutUntil(json.child, (out) => out.includes('\n'));
    json.child.stdin.write('q');
    const ended = await json.done;
    expect(ended.code).toBe(0);
    expect(ended.stderr).toBe('');
    expect(JSON.parse(line.split('\n')[0] ?? '')).toMatchObject({ queue: { known: false } });
  });

  it('exits 2 for a queue name the server refuses, before drawing', async () => {
    const { child, done } = startTop('bad name');
    child.stdin.end();
    const result = await done;
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^ringmaster: .*\[BAD_USER_INPUT\]\n$/);
  });
});
