/**
 * `ringmaster history` against a real server: the steering history newest first, the queue's
 * or a group's, with who did it (the token's name over the API, the engine's actor otherwise)
 * and the state before and after.
 */
import { describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import { deadJobs, uniqueQueueName } from '../support/lanes.js';
import { useTestServer } from '../support/server.js';
import { runCli, runCliOk } from './support.js';

const TOKEN = 'ops-admin-token-0123456789';

const api = useTestServer({
  REAP_INTERVAL_MS: '86400000',
  AUTH_TOKENS: `alice=admin:${TOKEN}`,
});

const engineQueue = (name: string): Queue => api.server.engine.queue(name);

/** `ringmaster <args>` as alice, expecting exit 0 and nothing on stderr. */
async function cli(args: string[]): Promise<string> {
  return (await runCliOk(args, { RINGMASTER_URL: api.endpoint, RINGMASTER_TOKEN: TOKEN })).stdout;
}

interface HistoryData {
  queue: {
    history: {
      totalCount: number;
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
      edges: {
        node: { action: string; actor: string; group: string; before: unknown; after: unknown };
      }[];
    };
  };
}

describe('history', () => {
  it('lists the steering actions newest first, with who, what and before → after', async () => {
    const q = uniqueQueueName('cli-history');
    await deadJobs(engineQueue(q), 'x', 2);
    await cli(['retry-dead', '-q', q, '--group', 'x']);
    await engineQueue(q).pauseQueue();

    const json = JSON.parse(await cli(['history', '-q', q, '--json'])) as HistoryData;
    expect(json.queue.history.totalCount).toBe(2);
    expect(json.queue.history.edges.map(({ node }) => node)).toMatchObject([
      {
        action: 'pauseQueue',
        actor: 'engine',
        group: '',
        before: { paused: false },
        after: { paused: true },
      },
      {
        action: 'requeueDead',
        actor: 'alice',
        group: 'x',
        before: { dead: 2 },
        after: { dead: 0 },
      },
    ]);

    const human = await cli(['history', '-q', q]);
    expect(human).toMatch(/│ engine\s+│ pauseQueue\s+│ \(queue\)\s+│ paused false → true\s+│/);
    expect(human).toMatch(/│ alice\s+│ requeueDead\s+│ x\s+│ dead 2 → 0\s+│/);
    expect(human.indexOf('pauseQueue')).toBeLessThan(human.indexOf('requeueDead'));
    expect(human).toContain(`2 of 2 entries in ${q}, newest first`);
  });

  it('shows only what changed: a setLimit says limit null → 3, not the whole group', async () => {
    const q = uniqueQueueName('cli-history');
    await engineQueue(q).enqueue('g');
    await cli(['limit', 'g', '3', '-q', q]);
    const human = await cli(['history', '-q', q, '--group', 'g']);
    expect(human).toMatch(/│ alice\s+│ setLimit\s+│ g\s+│ limit null → 3\s+│/);
  });

  it('shows the whole before → after, nested values by path, wrapped rather than cut', async () => {
    const q = uniqueQueueName('cli-history');
    await engineQueue(q).setRetention({ completed: { count: 5, ageMs: null } });
    const human = await cli(['history', '-q', q]);
    // One line per changed value; the values left alone (dead's) are not repeated.
    expect(human).toMatch(/│ setRetention\s+│ \(queue\)\s+│ completed\.count 1000 → 5\s+│/);
    expect(human).toMatch(/^│\s+│\s+│\s+│\s+│ completed\.ageMs 3600000 → null\s+│$/m);
    expect(human).not.toContain('…');
    expect(human).not.toContain('dead');
  });

  it('--group reads that group’s history; --first bounds the page', async () => {
    const q = uniqueQueueName('cli-history');
    await deadJobs(engineQueue(q), 'x', 1);
    await deadJobs(engineQueue(q), 'y', 1);
    await cli(['retry-dead', '-q', q, '--group', 'x']);
    await cli(['retry-dead', '-q', q, '--group', 'y']);
    const ofX = JSON.parse(
      await cli(['history', '-q', q, '--group', 'x', '--json']),
    ) as HistoryData;
    expect(ofX.queue.history.edges.map(({ node }) => [node.action, node.group])).toEqual([
      ['requeueDead', 'x'],
    ]);
    const first = JSON.parse(
      await cli(['history', '-q', q, '--first', '1', '--json']),
    ) as HistoryData;
    expect(first.queue.history.totalCount).toBe(2);
    expect(first.queue.history.edges.map(({ node }) => node.group)).toEqual(['y']);
    // A queue never used is named as such on stderr (exit 0): a mistyped -q shows.
    const none = uniqueQueueName('cli-none');
    const unused = await runCli(['history', '-q', none], {
      RINGMASTER_URL: api.endpoint,
      RINGMASTER_TOKEN: TOKEN,
    });
    expect(unused.code).toBe(0);
    expect(unused.stdout).toContain('no steering history in');
    expect(unused.stderr).toBe(
      `ringmaster: queue "${none}" is not known to this Redis (no job or setting was ever written to it): check --queue / RINGMASTER_QUEUE\n`,
    );
  });

  it('shows each entry’s detail under its change: a timed call’s span and deadline, a dropped revert', async () => {
    const q = uniqueQueueName('cli-history');
    await engineQueue(q).enqueue('g');
    await cli(['limit', 'g', '3', '-q', q, '--for', '10m']);
    await cli(['unlimit', 'g', '-q', q]);
    const human = await cli(['history', '-q', q]);
    expect(human).toMatch(/│ setLimit\s+│ g\s+│ limit null → 3\s+│/);
    expect(human).toMatch(/^│\s+│\s+│\s+│\s+│ for 10m, until \d{4}-\d\d-\d\dT[\d:.]+Z\s+│$/m);
    // The plain unlimit dropped the revert: what it dropped, in words, wrapped not cut.
    const flat = human.replace(/[\s│]+/g, ' ');
    expect(flat).toMatch(/cancelled: until \S+Z, reverts to no limit, set at \S+Z, set by alice /);
    expect(human).not.toMatch(/\d{13}/);
  });

  it('--group names the count under the page as the queue’s, never as the group’s', async () => {
    const q = uniqueQueueName('cli-history');
    await engineQueue(q).enqueue('a');
    await engineQueue(q).enqueue('b');
    for (const limit of [1, 2, 3]) await cli(['limit', 'a', String(limit), '-q', q]);
    await cli(['limit', 'b', '1', '-q', q]);
    const human = await cli(['history', '-q', q, '--group', 'b']);
    expect(human).toContain(`1 entry of b shown, newest first (4 in ${q}'s history, all groups)`);
    expect(human).not.toMatch(/of 4 entries in b/);
  });

  it('--after pages: the human output ends with the next page’s command, --json has pageInfo', async () => {
    const q = uniqueQueueName('cli-history');
    const e = engineQueue(q);
    await e.enqueue('g');
    for (const limit of [1, 2, 3]) await cli(['limit', 'g', String(limit), '-q', q]);

    const page1 = JSON.parse(
      await cli(['history', '-q', q, '--first', '2', '--json']),
    ) as HistoryData;
    expect(page1.queue.history.pageInfo.hasNextPage).toBe(true);
    const cursor = page1.queue.history.pageInfo.endCursor as string;
    expect(cursor).toEqual(expect.any(String));
    expect(page1.queue.history.edges.map(({ node }) => node.after)).toMatchObject([
      { limit: 3 },
      { limit: 2 },
    ]);

    const human1 = await cli(['history', '-q', q, '--first', '2']);
    const more = human1.trimEnd().split('\n').at(-1) as string;
    expect(more).toBe(`more: ringmaster history -q ${q} --first 2 --after ${cursor}`);

    // The command it prints reads the next page, the last: no `more:` line after it.
    const human2 = await cli(more.replace(/^more: ringmaster /, '').split(' '));
    expect(human2).toMatch(/│ setLimit\s+│ g\s+│ limit null → 1\s+│/);
    expect(human2).not.toContain('limit 1 → 2');
    expect(human2).toContain(`1 of 3 entries in ${q}, newest first`);
    expect(human2).not.toContain('more:');
    const page2 = JSON.parse(
      await cli(['history', '-q', q, '--first', '2', '--after', cursor, '--json']),
    ) as HistoryData;
    expect(page2.queue.history.pageInfo).toEqual({
      hasNextPage: false,
      endCursor: expect.any(String),
    });
    expect(page2.queue.history.edges).toHaveLength(1);
  });
});
