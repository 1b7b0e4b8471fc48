/**
 * `ringmaster` commands against a real server (docs/cli.md): each command's human and --json
 * output checked against the engine's state, and the steering commands' effect on it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import { deadJobs, escapeGlob, rawState, scanAll, uniqueQueueName } from '../support/lanes.js';
import { useTestServer } from '../support/server.js';
import { type CliResult, runCli, runCliOk } from './support.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });

/** A dead job's error text: `boom <i>`. */
const boom = (i: number) => `boom ${i}`;
const engineQueue = (name: string): Queue => api.server.engine.queue(name);

/** `ringmaster <args>` against the test server (RINGMASTER_URL), expecting exit 0. */
const cli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
  runCliOk(args, { RINGMASTER_URL: api.endpoint, ...env });

/** The same, parsing stdout as JSON. */
async function cliJson<T = Record<string, unknown>>(args: string[]): Promise<T> {
  return JSON.parse((await cli([...args, '--json'])).stdout) as T;
}

/** A queue with groups a (2 pending, on the ring), b (limit 1, 1 active: SATURATED), c (paused). */
async function seeded(): Promise<string> {
  const q = uniqueQueueName('cli');
  const e = engineQueue(q);
  await e.enqueue('b', { n: 1 });
  await e.setLimit('b', 1);
  expect((await e.claim())?.group).toBe('b');
  await e.enqueue('a', { n: 2 });
  await e.enqueue('a', { n: 3 });
  await e.enqueue('c', { n: 4 });
  await e.pause('c');
  return q;
}

/** The line on stderr after a read of a queue never used. */
const unknownQueueLine = (queue: string): string =>
  `ringmaster: queue "${queue}" is not known to this Redis (no job or setting was ever written to it): check --queue / RINGMASTER_QUEUE\n`;

describe('a queue never used (Queue.known false)', () => {
  it('reads say so on stderr, exit 0, stdout as for an empty queue; --json has known', async () => {
    const typo = uniqueQueueName('ordrs');
    for (const args of [
      ['groups', '-q', typo],
      ['groups', '-q', typo, '--state', 'IDLE'],
      ['group', 'x', '-q', typo],
      ['dead', '-q', typo],
    ]) {
      const result = await runCli(args, { RINGMASTER_URL: api.endpoint });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe(unknownQueueLine(typo));
      expect(result.stdout).not.toContain('not known');
    }
    expect((await cliJson(['groups', '-q', typo])).known).toBe(false);
    expect(await cliJson(['group', 'x', '-q', typo])).toMatchObject({ queue: { known: false } });
    expect(await cliJson(['dead', '-q', typo])).toMatchObject({ queue: { known: false } });
    // A queue with a job or a setting is known: nothing on stderr (cli() checks it).
    const used = await seeded();
    expect((await cli(['groups', '-q', used])).stdout).toContain(`of 3 groups in ${used}`);
    expect((await cliJson(['groups', '-q', used])).known).toBe(true);
    await cli(['group', 'nobody', '-q', used]);
    // Steering an unknown queue is legitimate (it creates it): no such line, only the note
    // that the group was never seen (the queue's first group is none it saw).
    const fresh = uniqueQueueName('fresh');
    const steered = await runCli(['limit', 'g', '2', '-q', fresh], {
      RINGMASTER_URL: api.endpoint,
    });
    expect(steered.code).toBe(0);
    expect(steered.stderr).not.toContain('is not known to this Redis');
    expect(steered.stderr).toMatch(/^ringmaster: group "g" was not known in queue /);
    await cli(['groups', '-q', fresh]);
  });
});

describe('status', () => {
  it('lists every queue with its state and counts, and the server readiness and feed mode', async () => {
    const q = await seeded();
    const counts = await engineQueue(q).counts();
    const json = await cliJson<{
      ready: { ready: boolean; notifications: string };
      queues: { name: string; state: string; counts: Record<string, number> }[];
    }>(['status']);
    expect(json.ready).toMatchObject({ ready: true, notifications: 'notifications' });
    const row = json.queues.find((queue) => queue.name === q);
    expect(row).toMatchObject({ state: 'RUNNING', counts: { ...counts } });
    const human = (await cli(['status'])).stdout;
    expect(human).toMatch(/: ready, redis up, feed notifications/);
    const line = human.split('\n').find((text) => text.includes(q));
    expect(line?.split('│').map((cell) => cell.trim())).toEqual([
      '',
      q,
      'RUNNING',
      String(counts.groups),
      String(counts.onRing),
      String(counts.paused),
      String(counts.saturated),
      String(counts.pending),
      String(counts.delayed),
      String(counts.active),
      String(counts.dead),
      String(counts.completed),
      '',
    ]);
  });
});

describe('status after Redis lost a queue', () => {
  it('names the queue whose state was lost, as /ready lists it, the server still ready', async () => {
    const q = uniqueQueueName('lost');
    const e = engineQueue(q);
    await e.enqueue('g', 1);
    await api.server.engine.checkState();
    const client = api.redis.client();
    await client.del(...(await scanAll(client, `${escapeGlob(e.keys.base)}*`)));
    await api.server.engine.checkState();
    const json = await cliJson<{ ready: { ready: boolean; stateLost?: { queue: string }[] } }>([
      'status',
    ]);
    expect(json.ready.ready).toBe(true);
    expect(json.ready.stateLost).toContainEqual(expect.objectContaining({ queue: q }));
    const human = (await cli(['status'])).stdout;
    expect(human).toContain(`state lost: queue ${q} (DELETED, `);
  });
});

describe('groups and group', () => {
  it('groups lists a page of groups by id with their state, as the engine reads them', async () => {
    const q = await seeded();
    const json = await cliJson<{ totalCount: number; groups: { id: string; state: string }[] }>([
      'groups',
      '--queue',
      q,
    ]);
    expect(json.totalCount).toBe(3);
    expect(json.groups.map((g) => [g.id, g.state])).toEqual([
      ['a', 'READY'],
      ['b', 'SATURATED'],
      ['c', 'PAUSED'],
    ]);
    const engine = await engineQueue(q).group('b');
    expect(json.groups[1]).toMatchObject({
      limit: engine.limit,
      active: engine.active,
      pending: 0,
    });
    const human = (await cli(['groups'], { RINGMASTER_QUEUE: q })).stdout;
    expect(human).toMatch(/│ a\s+│ ready\s+│ none\s+│ 0\s+│ 2\s+│ yes\s+│/);
    expect(human).toMatch(/│ b\s+│ at limit\s+│ 1\s+│ 1\s+│ 0\s+│ no\s+│/);
    expect(human).toContain('3 of 3 groups in');
  });

  it('--state keeps the groups in that state, reading pages until --first match', async () => {
    const q = await seeded();
    // The API's states in any case, and the words the tables show, as written or hyphenated.
    for (const [state, ids, name] of [
      ['PAUSED', ['c'], 'PAUSED'],
      ['ready', ['a'], 'ready'],
      ['IDLE', [], 'IDLE'],
      ['saturated', ['b'], 'SATURATED'],
      ['at limit', ['b'], 'at limit'],
      ['AT-LIMIT', ['b'], 'at limit'],
      ['Paused', ['c'], 'paused'],
      ['parked', [], 'parked'],
      ['busy', [], 'busy'],
    ] as const) {
      const json = await cliJson<{ groups: { id: string }[]; state: string }>([
        'groups',
        '-q',
        q,
        '--state',
        state,
      ]);
      expect({ state, ids: json.groups.map((g) => g.id), name: json.state }).toEqual({
        state,
        ids,
        name,
      });
    }
    expect((await cli(['groups', '-q', q, '--state', 'at-limit'])).stdout).toContain(
      `1 at limit of 3 groups in ${q}`,
    );
    // 600 groups: past one page of 500; the READY ones are g0 and g599.
    const many = uniqueQueueName('cli-many');
    const e = engineQueue(many);
    await e.enqueue('g000');
    await e.enqueue('g599');
    for (let i = 1; i < 599; i++) await e.pause(`g${String(i).padStart(3, '0')}`);
    const ready = await cliJson<{ groups: { id: string }[]; totalCount: number }>([
      'groups',
      '-q',
      many,
      '--state',
      'READY',
    ]);
    expect(ready.totalCount).toBe(600);
    expect(ready.groups.map((g) => g.id)).toEqual(['g000', 'g599']);
    const first = await cliJson<{ groups: { id: string }[] }>([
      'groups',
      '-q',
      many,
      '--state',
      'PAUSED',
      '--first',
      '3',
    ]);
    expect(first.groups.map((g) => g.id)).toEqual(['g001', 'g002', 'g003']);
    expect((await cli(['groups', '-q', q, '--state', 'IDLE'])).stdout).toContain(
      'no IDLE groups in',
    );
  });

  it('group shows one group with its reason; --json is the GraphQL data', async () => {
    const q = await seeded();
    await engineQueue(q).setWeight('b', 3);
    const json = await cliJson<{ queue: { group: Record<string, unknown> } }>([
      'group',
      'b',
      '-q',
      q,
    ]);
    expect(json.queue.group).toMatchObject({
      id: 'b',
      queue: q,
      limit: 1,
      active: 1,
      pending: 0,
      state: 'SATURATED',
      blockedBy: 'LIMIT',
      weight: 3,
    });
    const human = (await cli(['group', 'c', '-q', q])).stdout;
    expect(human).toMatch(/^group\s+c$/m);
    expect(human).toMatch(/^state\s+paused$/m);
    expect(human).toMatch(/^paused\s+yes$/m);
    expect(human).toMatch(/^weight\s+1$/m);
    expect(human).toMatch(/^blocked by\s+paused$/m);
    expect(human).toMatch(/^reason\s+\S/m);
    // What blocks a group in the words its state is shown in, not the API's LIMIT.
    expect((await cli(['group', 'b', '-q', q])).stdout).toMatch(/^blocked by\s+at limit$/m);
  });
});

describe('steering', () => {
  it('limit, unlimit, pause and resume change the group and print it after', async () => {
    const q = await seeded();
    const e = engineQueue(q);
    const limited = await cli(['limit', 'a', '0', '-q', q]);
    expect(limited.stdout).toContain(`limit of a in ${q} set to 0`);
    expect(limited.stdout).toMatch(/^limit\s+0$/m);
    expect(await e.group('a')).toMatchObject({ limit: 0, onRing: false });

    const cleared = await cliJson<{ clearLimit: { limit: number | null; onRing: boolean } }>([
      'unlimit',
      'a',
      '-q',
      q,
    ]);
    expect(cleared.clearLimit).toMatchObject({ limit: null, onRing: true });
    expect((await e.group('a')).limit).toBeNull();

    const paused = await cli(['pause', 'a', '-q', q]);
    expect(paused.stdout).toContain(`a in ${q} paused`);
    expect(await e.group('a')).toMatchObject({ paused: true, onRing: false });

    const resumed = await cliJson<{ resumeGroup: { paused: boolean; state: string } }>([
      'resume',
      'a',
      '-q',
      q,
    ]);
    expect(resumed.resumeGroup).toEqual(expect.objectContaining({ paused: false, state: 'READY' }));
    expect(await e.group('a')).toMatchObject({ paused: false, onRing: true });
    expect((await rawState(e)).ring).toContain('a');
  });
});

describe('steering that changes nothing', () => {
  it('says "already … (unchanged)" where the group was so already, exit 0; "set" where not', async () => {
    const q = await seeded();
    const e = engineQueue(q);
    const said = async (args: string[]) =>
      (await cli([...args, '-q', q])).stdout.split('\n')[0] as string;
    expect(await said(['limit', 'a', '3'])).toBe(`limit of a in ${q} set to 3`);
    expect(await said(['limit', 'a', '3'])).toBe(`limit of a in ${q} already 3 (unchanged)`);
    expect(await said(['unlimit', 'a'])).toBe(`limit of a in ${q} removed`);
    expect(await said(['unlimit', 'a'])).toBe(`a in ${q} had no limit (unchanged)`);
    expect(await said(['pause', 'c'])).toBe(`c in ${q} already paused (unchanged)`);
    expect(await said(['resume', 'a'])).toBe(`a in ${q} was not paused (unchanged)`);
    expect(await said(['weight', 'a', '1'])).toBe(`weight of a in ${q} already 1 (unchanged)`);
    expect(await said(['unrate', 'a'])).toBe(`a in ${q} had no rate limit (unchanged)`);
    expect(await said(['rate', 'a', '5', '--per', '1m'])).toBe(
      `rate of a in ${q} set to 5 tokens per 1m, burst 5`,
    );
    expect(await said(['rate', 'a', '5', '--per', '60s'])).toBe(
      `rate of a in ${q} already 5 tokens per 1m, burst 5 (unchanged)`,
    );
    expect(await said(['rate', 'a', '5', '--per', '1m', '--burst', '9'])).toBe(
      `rate of a in ${q} set to 5 tokens per 1m, burst 9`,
    );
    expect((await e.group('a')).rateLimit).toEqual({ max: 5, windowMs: 60_000, burst: 9 });
    expect(await said(['unrate', 'a'])).toBe(`rate limit of a in ${q} removed`);
    // A plain call that drops a pending revert changes something: not "already".
    await e.setLimit('b', 2, { forMs: 600_000 });
    expect(await said(['limit', 'b', '2'])).toBe(`limit of b in ${q} set to 2`);
    expect((await e.group('b')).limitOverride).toBeNull();
  });
});

describe('steering a group the queue never saw', () => {
  it('notes on stderr that the group was not known, exit 0; a second call, known, says nothing', async () => {
    const q = await seeded();
    const first = await runCli(['pause', 'nobody-typo', '-q', q], { RINGMASTER_URL: api.endpoint });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^nobody-typo in \S+ paused$/m);
    expect(first.stderr).toBe(
      `ringmaster: group "nobody-typo" was not known in queue "${q}" (no job or setting was ever written to it; the call registered it): check the group id\n`,
    );
    // Registered by that call: known to the next one.
    await cli(['resume', 'nobody-typo', '-q', q]);
    // A group with jobs is known; --json carries known instead of the note.
    await cli(['limit', 'a', '3', '-q', q]);
    const json = await runCli(['limit', 'fresh', '2', '-q', q, '--json'], {
      RINGMASTER_URL: api.endpoint,
    });
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toMatchObject({ setLimit: { id: 'fresh', known: false } });
  });
});

describe('rate limits', () => {
  it('groups --state RATE_LIMITED finds a group at its rate; group shows the rate and until when', async () => {
    const q = await seeded();
    const e = engineQueue(q);
    await e.enqueue('r');
    await e.enqueue('r');
    await e.setRateLimit('r', { max: 1, windowMs: 3_600_000 });
    // Claim until r's one claim of the window is taken (a and r share the ring).
    for (let i = 0; i < 4 && (await e.group('r')).state !== 'RATE_LIMITED'; i++) await e.claim();
    expect((await e.group('r')).state).toBe('RATE_LIMITED');
    const json = await cliJson<{ groups: { id: string }[] }>([
      'groups',
      '-q',
      q,
      '--state',
      'rate_limited',
    ]);
    expect(json.groups.map((g) => g.id)).toEqual(['r']);
    const human = (await cli(['group', 'r', '-q', q])).stdout;
    expect(human).toMatch(/^state\s+rate-limited$/m);
    expect(human).toMatch(/^rate limit\s+1 token per 1h, burst 1$/m);
    expect(human).toMatch(/^rate-limited until\s+\S+Z$/m);
    expect((await cli(['group', 'a', '-q', q])).stdout).toMatch(/^rate limit\s+none$/m);
  });

  it('a group whose window reopened before any claim is not RATE_LIMITED: READY, off the ring', async () => {
    const q = uniqueQueueName('cli');
    const e = engineQueue(q);
    await e.setRateLimit('r', { max: 1, windowMs: 3_600_000 });
    await e.enqueue('r');
    await e.enqueue('r');
    await e.claim();
    const [sec] = await e.redis.time();
    await e.redis.zadd(e.keys.rateLimited, (Number(sec) - 86_400) * 1000, 'r');
    const human = (await cli(['group', 'r', '-q', q])).stdout;
    expect(human).toMatch(/^state\s+re-joining$/m);
    expect(human).not.toMatch(/^rate-limited until/m);
    expect(human).toMatch(/^on ring\s+no$/m);
    expect(human).toMatch(
      /^reason\s+ready: the token it waited for came at \S+Z; it re-joins the ring/m,
    );
    const json = await cliJson<{ groups: { id: string }[] }>([
      'groups',
      '-q',
      q,
      '--state',
      'rate_limited',
    ]);
    expect(json.groups).toEqual([]);
  });
});

describe('the queue cap: queue-limit, reserve', () => {
  it('queue-limit sets, times and removes the cap; reserve sets a group reserve', async () => {
    const q = await seeded();
    const e = engineQueue(q);
    expect((await cli(['queue-limit', '5', '-q', q])).stdout).toBe(
      `cap of ${q} set to 5 (1 in flight)\n`,
    );
    expect((await e.cap()).limit).toBe(5);
    const reserved = await cli(['reserve', 'a', '2', '-q', q]);
    expect(reserved.stdout).toContain(`reserve of a in ${q} set to 2`);
    expect(reserved.stdout).toMatch(/^reserve\s+2$/m);
    expect((await e.group('a')).reserve).toBe(2);
    expect((await cli(['queue-limit', '3', '-q', q, '--for', '10m'])).stdout).toBe(
      `cap of ${q} set to 3 for 10m, then back (1 in flight, reserves 2)\n`,
    );
    expect((await e.cap()).override?.revertTo).toBe(5);
    // queue-limit alone reads the cap, and a timed one's pending revert.
    expect((await cli(['queue-limit', '-q', q])).stdout).toMatch(
      new RegExp(
        `^cap of ${q}: 3 \\(1 in flight, reserves 2\\)\ncap reverts to 5 in (10m|9m \\d+s) \\(\\S+Z, set by admin\\)\n$`,
      ),
    );
    expect((await cli(['queue-limit', '--clear', '-q', q])).stdout).toBe(
      `cap of ${q} removed (1 in flight, reserves 2)\n`,
    );
    expect((await cli(['queue-limit', '-q', q])).stdout).toBe(
      `no cap on ${q} (1 in flight, reserves 2)\n`,
    );
    await e.setQueueLimit(4);
    const json = await cliJson<{ clearQueueLimit: { limit: null } }>([
      'queue-limit',
      'none',
      '-q',
      q,
    ]);
    expect(json.clearQueueLimit.limit).toBeNull();
    expect(await e.cap()).toMatchObject({ limit: null, override: null });
  });

  it('refuses a cap out of range, a timed none and a reserve past the cap; nothing changed', async () => {
    const q = await seeded();
    const env = { RINGMASTER_URL: api.endpoint };
    const big = await runCli(['queue-limit', '1000001', '-q', q], env);
    expect(big.code).toBe(1);
    expect(big.stderr).toMatch(
      /change limit: must be a whole number 0\.\.1,000,000, not "1000001"/,
    );
    const timedNone = await runCli(['queue-limit', 'none', '--for', '1m', '-q', q], env);
    expect(timedNone.code).toBe(1);
    const timedNothing = await runCli(['queue-limit', '--for', '1m', '-q', q], env);
    expect(timedNothing.code).toBe(1);
    expect(timedNothing.stderr).toMatch(/--for needs a cap/);
    await engineQueue(q).setQueueLimit(1);
    const past = await runCli(['reserve', 'a', '2', '-q', q], env);
    expect(past.code).toBe(2);
    expect(past.stderr).toMatch(/reserve/);
    expect(await engineQueue(q).cap()).toMatchObject({ limit: 1, reserved: 0 });
  });
});

describe('shares: weight, rate, unrate', () => {
  it('weight sets the turns per round; rate --per sets a rate limit; unrate removes it', async () => {
    const q = await seeded();
    const e = engineQueue(q);
    const weighted = await cli(['weight', 'a', '3', '-q', q]);
    expect(weighted.stdout).toContain(`weight of a in ${q} set to 3`);
    expect(weighted.stdout).toMatch(/^weight\s+3$/m);
    expect((await e.group('a')).weight).toBe(3);

    const rated = await cli(['rate', 'a', '5', '-q', q, '--per', '1m']);
    expect(rated.stdout).toContain(`rate of a in ${q} set to 5 tokens per 1m, burst 5`);
    expect(rated.stdout).toMatch(/^rate limit\s+5 tokens per 1m, burst 5$/m);
    expect((await e.group('a')).rateLimit).toEqual({ max: 5, windowMs: 60_000, burst: 5 });

    const json = await cliJson<{ clearRateLimit: { rateLimit: unknown } }>([
      'unrate',
      'a',
      '-q',
      q,
    ]);
    expect(json.clearRateLimit.rateLimit).toBeNull();
    expect((await e.group('a')).rateLimit).toBeNull();
  });

  it('refuses values out of the server’s range and a rate without --per (exit 1); nothing changed', async () => {
    const q = await seeded();
    const env = { RINGMASTER_URL: api.endpoint };
    const heavy = await runCli(['weight', 'a', '1001', '-q', q], env);
    expect(heavy.code).toBe(1);
    expect(heavy.stderr).toMatch(/change weight: must be a whole number 1\.\.1,000, not "1001"\n$/);
    const zero = await runCli(['rate', 'a', '0', '-q', q, '--per', '1s'], env);
    expect(zero.code).toBe(1);
    expect(zero.stderr).toMatch(/change max: must be a whole number 1\.\.1,000,000, not "0"\n$/);
    const noWindow = await runCli(['rate', 'a', '5', '-q', q], env);
    expect(noWindow.code).toBe(1);
    expect(noWindow.stderr).toMatch(/--per <duration>/);
    const bare = await runCli(['rate', 'a', '5', '-q', q, '--per', '10'], env);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(/needs a unit/);
    expect(await engineQueue(q).group('a')).toMatchObject({ weight: 1, rateLimit: null });
  });
  it('refuses a duration unit that could mean two things (1M: a minute or a month?), exit 1', async () => {
    const q = await seeded();
    const env = { RINGMASTER_URL: api.endpoint };
    // M is a minute to parse-duration, and any case goes there: a month meant as 1M (or 1mo)
    // would silently be a minute (or 30.4 days). Units are ms, s, m, h, d, lower case.
    for (const per of ['1M', '1mo', '1S', '2H', '1w', '1y', '1min', '1Ms']) {
      const ambiguous = await runCli(['rate', 'a', '5', '-q', q, '--per', per], env);
      expect(ambiguous.code, per).toBe(1);
      expect(ambiguous.stderr).toMatch(
        /is no unit here: a duration's units are ms, s, m \(minutes\), h and d, in lower case/,
      );
    }
    const pause = await runCli(['pause', 'a', '-q', q, '--for', '1M'], env);
    expect(pause.code).toBe(1);
    expect(pause.stderr).toMatch(/'--for <duration>' .*"M" is no unit here/);
    expect(await engineQueue(q).group('a')).toMatchObject({ rateLimit: null, paused: false });
    // The units kept mean one thing each: m is a minute, d a day.
    await cli(['rate', 'a', '5', '-q', q, '--per', '1d']);
    expect((await engineQueue(q).group('a')).rateLimit).toEqual({
      max: 5,
      windowMs: 86_400_000,
      burst: 5,
    });
  });
});

describe('timed overrides', () => {
  it('limit --for and pause --for revert on their own; the group shows when and to what', async () => {
    const q = await seeded();
    const e = engineQueue(q);
    const limited = await cli(['limit', 'a', '1', '-q', q, '--for', '10m']);
    expect(limited.stdout).toContain(`limit of a in ${q} set to 1 for 10m`);
    expect(limited.stdout).toMatch(
      /^limit reverts\s+to none in (10m|9m \d+s) \(\S+Z, set by admin\)$/m,
    );
    const engine = (await e.group('a')).limitOverride;
    expect(engine).toMatchObject({ revertTo: null, actor: 'admin' });
    expect((engine?.until ?? 0) - (engine?.setAt ?? 0)).toBe(600_000);

    const paused = await cliJson<{
      pauseGroup: {
        paused: boolean;
        pauseOverride: { remainingMs: number; revertToPaused: boolean };
      };
    }>(['pause', 'a', '-q', q, '--for', '1h30m']);
    expect(paused.pauseGroup.paused).toBe(true);
    expect(paused.pauseGroup.pauseOverride).toMatchObject({ revertToPaused: false });
    expect(paused.pauseGroup.pauseOverride.remainingMs).toBeLessThanOrEqual(5_400_000);
    expect((await e.group('a')).pauseOverride).toMatchObject({ revertTo: false });
    expect((await cli(['group', 'a', '-q', q])).stdout).toMatch(
      /^resumes\s+in 1h 30m|^resumes\s+in 1h 29m/m,
    );

    // A plain call drops the pending revert of its kind.
    await cli(['resume', 'a', '-q', q]);
    expect((await e.group('a')).pauseOverride).toBeNull();
    expect((await e.group('a')).limitOverride).not.toBeNull();
  });

  it('resume --for resumes a paused group for a while: it pauses again on its own', async () => {
    const q = await seeded();
    const e = engineQueue(q);
    await cli(['pause', 'a', '-q', q]);
    const resumed = await cli(['resume', 'a', '-q', q, '--for', '10m']);
    expect(resumed.stdout).toContain(`a in ${q} resumed for 10m`);
    const group = await e.group('a');
    expect(group.paused).toBe(false);
    expect(group.pauseOverride).toMatchObject({ revertTo: true, actor: 'admin' });
    expect((group.pauseOverride?.until ?? 0) - (group.pauseOverride?.setAt ?? 0)).toBe(600_000);
    expect((await cli(['group', 'a', '-q', q])).stdout).toMatch(
      /^pauses again\s+in (10m|9m \d+s)/m,
    );
  });

  it('a timed call that would revert to the value it sets is the plain call: the first line says no revert is pending', async () => {
    const q = await seeded();
    // After a timed pause, resume --for would revert to running, as it is: a plain resume.
    // The timed pause says what its revert does in Group.reason's words (src/overrideWords.ts).
    expect((await cli(['pause', 'a', '-q', q, '--for', '90s'])).stdout).toContain(
      `a in ${q} paused for 1m 30s, then resumes`,
    );
    const resumed = (await cli(['resume', 'a', '-q', q, '--for', '15m'])).stdout;
    expect(resumed).toMatch(
      new RegExp(`^a in ${q} resumed; no revert is pending: it stays running$`, 'm'),
    );
    expect(resumed).not.toMatch(/^(resumes|pauses again|pause revert)\s/m);

    // Paused, a timed resume pending (reverts to paused), then pause --for 1h: a plain pause.
    await cli(['pause', 'c', '-q', q]);
    await cli(['resume', 'c', '-q', q, '--for', '15m']);
    const paused = (await cli(['pause', 'c', '-q', q, '--for', '1h'])).stdout;
    expect(paused).toMatch(
      new RegExp(`^c in ${q} paused; no revert is pending: it stays paused$`, 'm'),
    );
    expect(paused).not.toContain('paused for 1h');
    expect((await cli(['group', 'c', '-q', q])).stdout).not.toMatch(
      /^(resumes|pauses again|pause revert)\s/m,
    );

    // A first timed resume of a paused group: it does revert, and says so.
    const fresh = (await cli(['pause', 'a', '-q', q])).stdout;
    expect(fresh).toContain(`a in ${q} paused`);
    const timed = (await cli(['resume', 'a', '-q', q, '--for', '10m'])).stdout;
    expect(timed).toContain(`a in ${q} resumed for 10m, then paused again`);
  });

  it('a timed call is worded from the answer: unchanged, plain, or timed with its revert', async () => {
    const q = await seeded();
    const e = engineQueue(q);
    // What is in force already, with nothing pending: unchanged, as the plain calls say it.
    await e.setLimit('a', 3);
    expect((await cli(['limit', 'a', '3', '-q', q, '--for', '5m'])).stdout).toMatch(
      new RegExp(`^limit of a in ${q} already 3 \\(unchanged\\)$`, 'm'),
    );
    expect((await cli(['pause', 'c', '-q', q, '--for', '5m'])).stdout).toMatch(
      new RegExp(`^c in ${q} already paused \\(unchanged\\)$`, 'm'),
    );
    expect((await cli(['resume', 'a', '-q', q, '--for', '5m'])).stdout).toMatch(
      new RegExp(`^a in ${q} was not paused \\(unchanged\\)$`, 'm'),
    );
    // Timed: it says what it reverts to.
    expect((await cli(['limit', 'a', '2', '-q', q, '--for', '10m'])).stdout).toMatch(
      new RegExp(`^limit of a in ${q} set to 2 for 10m, then 3$`, 'm'),
    );
    // Back to what the pending revert restores: the plain call, and no revert is left.
    expect((await cli(['limit', 'a', '3', '-q', q, '--for', '1m'])).stdout).toMatch(
      new RegExp(`^limit of a in ${q} set to 3; no revert is pending: it stays 3$`, 'm'),
    );
    expect((await e.group('a')).limitOverride).toBeNull();
  });

  it('cancel names what it dropped: a timed resume of a paused group is not a timed pause', async () => {
    const q = await seeded();
    await cli(['resume', 'c', '-q', q, '--for', '10m']);
    expect((await cli(['cancel', 'c', 'pause', '-q', q])).stdout).toMatch(
      new RegExp(`^timed resume of c in ${q} cancelled: it stays running$`, 'm'),
    );
    await cli(['pause', 'a', '-q', q, '--for', '10m']);
    expect((await cli(['cancel', 'a', 'pause', '-q', q])).stdout).toMatch(
      new RegExp(`^timed pause of a in ${q} cancelled: it stays paused$`, 'm'),
    );
  });

  it('cancel limit|pause drops the pending revert and keeps the value now', async () => {
    const q = await seeded();
    const e = engineQueue(q);
    await cli(['limit', 'a', '1', '-q', q, '--for', '10m']);
    await cli(['pause', 'a', '-q', q, '--for', '10m']);
    const cancelled = await cli(['cancel', 'a', 'limit', '-q', q]);
    expect(cancelled.stdout).toContain(`timed limit of a in ${q} cancelled`);
    expect(await e.group('a')).toMatchObject({ limit: 1, limitOverride: null, paused: true });
    expect((await e.group('a')).pauseOverride).not.toBeNull();
    const json = await cliJson<{ cancelOverride: { paused: boolean; pauseOverride: unknown } }>([
      'cancel',
      'a',
      'pause',
      '-q',
      q,
    ]);
    expect(json.cancelOverride).toMatchObject({ paused: true, pauseOverride: null });
    expect(json).toMatchObject({ cancelled: true });
    const wrong = await runCli(['cancel', 'a', 'weight', '-q', q], {
      RINGMASTER_URL: api.endpoint,
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/limit, pause/);
  });

  it('cancel with no timed override of that kind pending says "nothing to cancel", exit 0', async () => {
    const q = await seeded();
    const e = engineQueue(q);
    await cli(['pause', 'a', '-q', q, '--for', '10m']);
    const none = await cli(['cancel', 'a', 'limit', '-q', q]);
    expect(none.stdout).toMatch(
      new RegExp(`^nothing to cancel: a in ${q} has no timed limit pending\n`),
    );
    expect(none.stdout).not.toContain('cancelled');
    expect(none.stdout).toMatch(/^resumes\s+in /m);
    // The pause's revert is untouched, and no history entry was written.
    expect((await e.group('a')).pauseOverride).not.toBeNull();
    const json = await cliJson<{ cancelled: boolean; cancelOverride: { id: string } }>([
      'cancel',
      'c',
      'pause',
      '-q',
      q,
    ]);
    expect(json).toMatchObject({ cancelled: false, cancelOverride: { id: 'c', paused: true } });
    // The real one is cancelled; a second cancel of it has nothing left to cancel.
    expect((await cli(['cancel', 'a', 'pause', '-q', q])).stdout).toContain(
      `timed pause of a in ${q} cancelled`,
    );
    expect((await cli(['cancel', 'a', 'pause', '-q', q])).stdout).toContain('nothing to cancel');
    const actions = (await e.history({ group: 'a' })).entries.map((entry) => entry.action);
    expect(actions.filter((action) => action === 'cancelOverride')).toHaveLength(1);
  });

  it('cancel whose revert came due between its read and its call does not claim it cancelled', async () => {
    // A server on which the timed limit (1, reverting to none) reverts between the two requests.
    const group = (limit: number | null, pending: boolean) => ({
      id: 'a',
      queue: 'q',
      limit,
      active: 0,
      pending: 0,
      paused: false,
      onRing: false,
      state: 'IDLE',
      blockedBy: null,
      reason: 'no pending jobs',
      weight: 1,
      rateLimit: null,
      rateLimitedUntil: null,
      limitOverride: pending
        ? { until: '2026-01-01T00:00:00.000Z', remainingMs: 5, revertToLimit: null, actor: 'x' }
        : null,
      pauseOverride: null,
    });
    const fake = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        const mutation = /^\s*mutation/.test(JSON.parse(body).query);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            data: mutation
              ? { cancelOverride: group(null, false) }
              : { queue: { group: group(1, true) } },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/graphql`;
      const human = await runCli(['cancel', 'a', 'limit', '-q', 'q', '--url', url]);
      expect(human.code).toBe(0);
      expect(human.stdout).toMatch(
        /^the limit of a in q went from 1 to none before the cancel arrived .*it may have had nothing to cancel; see `ringmaster history -q q --group a`$/m,
      );
      expect(human.stdout).not.toContain('cancelled');
      const json = await runCli(['cancel', 'a', 'limit', '-q', 'q', '--url', url, '--json']);
      expect(JSON.parse(json.stdout)).toMatchObject({
        cancelled: null,
        cancelOverride: { limit: null },
      });
    } finally {
      fake.closeAllConnections();
      fake.close();
    }
  });

  it('--for is printed exactly: 1500ms is 1.5s, not 2s', async () => {
    const q = await seeded();
    const paused = (await cli(['pause', 'a', '-q', q, '--for', '1500ms'])).stdout;
    expect(paused).toContain(`a in ${q} paused for 1.5s`);
    // The remaining time, to the tenth under 10 s (rounded up): 1.5s, not 2s.
    expect(paused).toMatch(/^resumes\s+in 1\.5s \(/m);
    expect((await engineQueue(q).group('a')).pauseOverride).toMatchObject({ revertTo: false });
    expect((await cli(['limit', 'a', '1', '-q', q, '--for', '1m30.25s'])).stdout).toContain(
      `set to 1 for 1m 30.25s`,
    );
  });

  it('a --for past the server’s 30 days is exit 1, nothing changed', async () => {
    const q = await seeded();
    const result = await runCli(['limit', 'a', '1', '-q', q, '--for', '31d'], {
      RINGMASTER_URL: api.endpoint,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/change --for: must be 1ms\.\.30d, not "31d"\n$/);
    expect(await engineQueue(q).group('a')).toMatchObject({ limit: null, limitOverride: null });
  });
});

describe('job', () => {
  it('shows a job with its payload and, completed, its result; --json the same data', async () => {
    const q = uniqueQueueName('cli-job');
    const e = engineQueue(q);
    const { id } = await e.enqueue('acme', { order: 7 });
    const claimed = await e.claim();
    await e.complete(id, claimed?.token as string, { result: { receipt: 'r-7' } });
    const human = (await cli(['job', id, '-q', q])).stdout;
    expect(human).toContain(`job ${id} of acme in ${q}: COMPLETED`);
    expect(human).toContain('payload:\n{\n  "order": 7\n}');
    expect(human).toContain('result:\n{\n  "receipt": "r-7"\n}');
    expect(human).toContain('progress: -\n');
    expect(human).toMatch(/\nlog: -\n$/);
    const json = await cliJson<{ queue: { job: { result: unknown; payload: unknown } } }>([
      'job',
      id,
      '-q',
      q,
    ]);
    expect(json.queue.job).toMatchObject({ payload: { order: 7 }, result: { receipt: 'r-7' } });
    const pending = await e.enqueue('acme', { order: 8 });
    expect((await cli(['job', pending.id, '-q', q])).stdout).toContain('result: -');
    expect((await cli(['job', '999999', '-q', q])).stdout).toContain(`no job 999999 in ${q}`);
  });

  it("shows a job's progress and its log's newest 20 lines of all kept; --log the whole log, past a page of 500", async () => {
    const q = uniqueQueueName('cli-joblog');
    const e = engineQueue(q);
    const { id } = await e.enqueue('acme', { order: 9 });
    const token = (await e.claim())?.token as string;
    await e.updateJobProgress(id, token, 40);
    const lines = 505;
    for (let i = 1; i <= lines; i += 1) {
      await e.addJobLog(id, token, i === lines ? 'last\u001b[2J' : `step ${i}`);
    }
    const line = (text: string) => new RegExp(`\n  \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  ${text}\n`);

    const human = (await cli(['job', id, '-q', q])).stdout;
    expect(human).toContain(`job ${id} of acme in ${q}: ACTIVE`);
    expect(human).toContain('progress: 40%\n');
    expect(human).toContain('log (20 of 505 kept, oldest first):\n');
    expect(human).toMatch(line('step 486'));
    expect(human).not.toContain('step 485\n');
    // A worker's control character is drawn as a marker, never sent to the terminal.
    expect(human).toMatch(line('last⟨U\\+001B⟩\\[2J'));
    expect(human.endsWith(`\nmore: ringmaster job ${id} -q ${q} --log\n`)).toBe(true);

    const whole = (await cli(['job', id, '-q', q, '--log'])).stdout;
    expect(whole).toContain('log (505 of 505 kept, oldest first):\n');
    expect(whole).toMatch(line('step 1'));
    expect(whole.indexOf('  step 500\n')).toBeLessThan(whole.indexOf('  step 501\n'));
    expect(whole).not.toContain('more:');

    await e.updateJobProgress(id, token, { stage: 'ship', parcels: 3 });
    const json = await cliJson<{
      queue: {
        job: {
          progress: unknown;
          logs: { totalCount: number; edges: { node: { line: string } }[] };
        };
      };
    }>(['job', id, '-q', q]);
    expect(json.queue.job.progress).toEqual({ stage: 'ship', parcels: 3 });
    expect(json.queue.job.logs.totalCount).toBe(lines);
    expect(json.queue.job.logs.edges.map((edge) => edge.node.line).slice(0, 2)).toEqual([
      'step 486',
      'step 487',
    ]);
    expect((await cli(['job', id, '-q', q])).stdout).toContain(
      'progress:\n{\n  "stage": "ship",\n  "parcels": 3\n}',
    );
  });
});

describe('priority', () => {
  it('moves a pending job to its new place, shows it in `job`; out of range is a usage error, nothing sent', async () => {
    const q = uniqueQueueName('cli-prio');
    const e = engineQueue(q);
    const a = await e.enqueue('acme', { n: 1 });
    const b = await e.enqueue('acme', { n: 2 }, { priority: 7 });
    expect((await cli(['job', b.id, '-q', q])).stdout).toContain('\npriority: 7\n');
    expect((await cli(['priority', b.id, '1', '-q', q])).stdout).toBe(
      `job ${b.id} of acme in ${q}: priority 1 (PENDING)\n`,
    );
    expect(await e.redis.zrange(e.keys.lane('acme'), 0, -1)).toEqual([b.id, a.id]);
    expect((await cli(['job', b.id, '-q', q])).stdout).toContain('\npriority: 1\n');
    const json = await cliJson<{ changeJobPriority: { priority: number } }>([
      'priority',
      a.id,
      '3',
      '-q',
      q,
    ]);
    expect(json.changeJobPriority.priority).toBe(3);

    const active = await e.claim();
    expect(active?.id).toBe(b.id);
    expect((await cli(['priority', b.id, '9', '-q', q])).stdout).toBe(
      `job ${b.id} of acme in ${q} is ACTIVE: its priority stays 1 (only a PENDING or DELAYED job's changes)\n`,
    );
    for (const bad of ['0', '10', '2.5']) {
      const refused = await runCli(['priority', b.id, bad, '-q', q], {
        RINGMASTER_URL: api.endpoint,
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('priority: must be a whole number 1..9');
    }
    const missing = await runCli(['priority', '999999', '1', '-q', q], {
      RINGMASTER_URL: api.endpoint,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('JOB_NOT_FOUND');
    expect((await e.job(b.id))?.priority).toBe(1);
  });
});

describe('dead and retry-dead', () => {
  it('dead lists the dead jobs newest first, the queue’s or a group’s', async () => {
    const q = uniqueQueueName('cli-dead');
    const x = await deadJobs(engineQueue(q), 'x', 2, boom);
    const y = await deadJobs(engineQueue(q), 'y', 1, boom);
    const all = await cliJson<{
      queue: { jobs: { totalCount: number; edges: { node: { id: string; lastError: string } }[] } };
    }>(['dead', '-q', q]);
    expect(all.queue.jobs.totalCount).toBe(3);
    expect(all.queue.jobs.edges.map((edge) => edge.node.id)).toEqual([y[0], x[1], x[0]]);
    const ofX = await cliJson<{ queue: { jobs: { edges: { node: { id: string } }[] } } }>([
      'dead',
      '-q',
      q,
      '--group',
      'x',
    ]);
    expect(ofX.queue.jobs.edges.map((edge) => edge.node.id)).toEqual([x[1], x[0]]);
    const human = (await cli(['dead', '-q', q])).stdout;
    expect(human).toMatch(new RegExp(`│ ${x[0]}\\s+│ x\\s+│ 1/1\\s+│ \\S+\\s+│ boom 0\\s+│`));
    expect(human).toContain(`3 of 3 dead jobs in ${q}`);
    // A queue never used: the same answer, and a line on stderr naming it (exit 0).
    const none = uniqueQueueName('none');
    const unused = await runCli(['dead', '-q', none], { RINGMASTER_URL: api.endpoint });
    expect(unused.code).toBe(0);
    expect(unused.stdout).toContain('no dead jobs');
    expect(unused.stderr).toBe(unknownQueueLine(none));
  });

  it('retry-dead --group requeues that group’s, --all the rest, past one call of 1,000', async () => {
    const q = uniqueQueueName('cli-retry');
    const x = await deadJobs(engineQueue(q), 'x', 2, boom);
    await deadJobs(engineQueue(q), 'y', 1, boom);
    const e = engineQueue(q);
    const byGroup = await cli(['retry-dead', '-q', q, '--group', 'x']);
    expect(byGroup.stdout).toContain(`requeued 2 dead jobs of x in ${q} (0 remaining, 0 skipped)`);
    const one = await cli(['retry-dead', '-q', q, '--group', 'y']);
    expect(one.stdout).toContain(`requeued 1 dead job of y in ${q} (0 remaining, 0 skipped)`);
    expect((await e.group('x')).pending).toBe(2);
    expect((await e.job(x[0] as string))?.state).toBe('PENDING');
    expect((await e.counts()).dead).toBe(0);

    // 1,001 dead jobs of z, written as the engine would leave them, through the engine.
    const many = uniqueQueueName('cli-retry-many');
    const m = engineQueue(many);
    await m.setRetention({ dead: { count: 2000 } });
    for (let i = 0; i < 1001; i++) await m.enqueue('z', { i }, { maxAttempts: 1 });
    for (let i = 0; i < 1001; i++) {
      const job = await m.claim();
      await m.retry(job?.id as string, job?.token as string, 'boom');
    }
    expect((await m.counts()).dead).toBe(1001);
    const json = await cliJson<{ requeueDeadJobs: Record<string, number> }>([
      'retry-dead',
      '-q',
      many,
      '--all',
    ]);
    expect(json.requeueDeadJobs).toEqual({ count: 1001, remaining: 0, skipped: 0 });
    expect(await m.counts()).toMatchObject({ dead: 0, pending: 1001 });
  });
});
