/**
 * The CLI shows text a caller chose as the console does (docs/cli.md): an invisible character
 * in a group id, job id, actor or error — a zero-width space, a BOM, U+2028 — is written as a
 * marker (`acme⟨ZWSP⟩`), never raw, in every table and line; `--json` keeps the text as it is.
 * A new user's finding: after `enqueue(group: "acme\u200b")`, `ringmaster groups` showed
 * `acme` and a raw ZWSP, which looks exactly like `acme`. And look-alikes the first rule missed:
 * nonspacing marks that print as nothing (six rows of "acme", one of them PAUSED) and NFC against
 * NFD "café" (two identical rows).
 */
import { describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import { uniqueQueueName } from '../support/lanes.js';
import { useTestServer } from '../support/server.js';
import { finished, runCliOk, spawnCli, stdoutUntil } from './support.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
const engineQueue = (name: string): Queue => api.server.engine.queue(name);

const ZWSP = 'acme\u200b';
const BOM = '\ufeffacme';
const LS = 'a\u2028b';
/** What must never reach a terminal raw. */
const RAW = /[\u200b\ufeff\u2028]/;

async function cli(args: string[]): Promise<string> {
  return (await runCliOk([...args], { RINGMASTER_URL: api.endpoint })).stdout;
}

/** A queue whose groups, dead job's error and history actor hold invisible characters. */
async function seeded(): Promise<string> {
  const q = uniqueQueueName('cli-invisible');
  const e = engineQueue(q);
  await e.enqueue(ZWSP, { n: 1 });
  await e.enqueue(BOM, { n: 2 });
  await e.enqueue(LS, { n: 3 }, { maxAttempts: 1 });
  await e.setLimit(ZWSP, 1, { actor: 'ops\u200b' });
  let job = await e.claim();
  while (job !== null && job.group !== LS) job = await e.claim();
  if (job === null) throw new Error('no job of the U+2028 group claimed');
  await e.retry(job.id, job.token as string, 'broke\u200b here');
  return q;
}

describe('invisible characters in the CLI', () => {
  it('groups, group, dead and history draw them as markers; --json keeps them', async () => {
    const q = await seeded();
    const groups = await cli(['groups', '-q', q]);
    expect(groups).not.toMatch(RAW);
    expect(groups).toContain('acme⟨ZWSP⟩');
    expect(groups).toContain('⟨BOM⟩acme');
    expect(groups).toContain('a⟨U+2028⟩b');
    const group = await cli(['group', ZWSP, '-q', q]);
    expect(group).not.toMatch(RAW);
    expect(group).toMatch(/^group\s+acme⟨ZWSP⟩$/m);
    const dead = await cli(['dead', '-q', q]);
    expect(dead).not.toMatch(RAW);
    expect(dead).toContain('a⟨U+2028⟩b');
    expect(dead).toContain('broke⟨ZWSP⟩ here');
    const history = await cli(['history', '-q', q]);
    expect(history).not.toMatch(RAW);
    expect(history).toContain('ops⟨ZWSP⟩');
    expect(history).toContain('acme⟨ZWSP⟩');
    const json = JSON.parse(await cli(['groups', '-q', q, '--json'])) as {
      groups: { id: string }[];
    };
    expect(json.groups.map((g) => g.id).sort()).toEqual([ZWSP, LS, BOM].sort());
  });

  it("the steering commands' lines and top draw them as markers", async () => {
    const q = await seeded();
    const paused = await cli(['pause', ZWSP, '-q', q]);
    expect(paused).not.toMatch(RAW);
    expect(paused).toContain(`acme⟨ZWSP⟩ in ${q} paused`);
    const limited = await cli(['limit', BOM, '3', '-q', q]);
    expect(limited).not.toMatch(RAW);
    expect(limited).toContain(`limit of ⟨BOM⟩acme in ${q} set to 3`);
    await engineQueue(q).enqueue('next\u2028up');
    const child = spawnCli(['top', '-q', q, '--interval', '1h'], { RINGMASTER_URL: api.endpoint });
    const done = finished(child);
    const frame = await stdoutUntil(child, (text) => text.includes('busiest groups'));
    child.stdin.write('q');
    await done;
    expect(frame).not.toMatch(RAW);
    expect(frame).toContain('ring (1, head first): next⟨U+2028⟩up');
    expect(frame).toContain('│ ⟨BOM⟩acme ');
  });
});

describe('look-alike ids in the CLI', () => {
  it('groups draws six "acme"s and NFC and NFD "café" as different rows', async () => {
    const q = uniqueQueueName('cli-lookalike');
    const e = engineQueue(q);
    // Five nonspacing marks that print as nothing, and the plain id; and café composed and not.
    const acmes = [
      'acme',
      ...['\uFE0F', '\u034F', '\u17B5', '\u180B', '\u{E0100}'].map((m) => `acme${m}`),
    ];
    const cafes = ['caf\u00E9', 'cafe\u0301'];
    for (const id of [...acmes, ...cafes]) await e.enqueue(id);
    await e.pause('acme\u17B5');
    const table = await cli(['groups', '-q', q]);
    // The first cell of each row of groups, as printed.
    const cells = table
      .split('\n')
      .map((line) => /^│ (\S+)\s+│/.exec(line)?.[1])
      .filter((cell): cell is string => cell !== undefined && cell !== 'group');
    expect(cells.sort()).toEqual(
      [
        'acme',
        'acme⟨U+FE0F⟩',
        'acme⟨U+034F⟩',
        'acme⟨U+17B5⟩',
        'acme⟨U+180B⟩',
        'acme⟨U+E0100⟩',
        'caf\u00E9',
        'cafe⟨U+0301⟩',
      ].sort(),
    );
    expect(table).toMatch(/│ acme⟨U\+17B5⟩\s+│ paused/);
  });
});

describe('long cells', () => {
  it('a 256-byte group id is cut with an ellipsis in the table, whole in --json', async () => {
    const q = uniqueQueueName('cli-long');
    const long = `tenant-${'x'.repeat(240)}-end`;
    await engineQueue(q).enqueue(long, { n: 1 });
    await engineQueue(q).enqueue('short', { n: 2 });
    const table = await cli(['groups', '-q', q]);
    const widest = Math.max(...table.split('\n').map((line) => [...line].length));
    expect(widest, table).toBeLessThanOrEqual(100);
    expect(table).toMatch(/│ tenant-x+… │/);
    expect(table).toContain('│ short ');
    const dead = await cli(['dead', '-q', q]);
    expect(dead).toContain('no dead jobs');
    const json = JSON.parse(await cli(['groups', '-q', q, '--json'])) as {
      groups: { id: string }[];
    };
    expect(json.groups.map((g) => g.id)).toContain(long);
  });

  it('a stored error of 1,024 characters holding control characters is one cut row of dead', async () => {
    const q = uniqueQueueName('cli-long-error');
    const e = engineQueue(q);
    await e.enqueue('g', {}, { maxAttempts: 1 });
    const job = await e.claim();
    if (job === null) throw new Error('no job claimed');
    // What a processor's own text may hold: terminal escapes, a bell, line breaks, a NUL.
    const error = `\u001b[31mred\u0007\r\nsecond line\ttab\u0000${'y'.repeat(1_100)}`;
    await e.retry(job.id, job.token as string, error);
    const dead = await cli(['dead', '-q', q]);
    // No control character but the line breaks between rows.
    expect(dead).not.toMatch(/(?!\n)\p{Cc}/u);
    const row = dead.split('\n').find((line) => line.includes(`│ ${job.id} `)) ?? '';
    expect(row, dead).toContain('⟨U+001B⟩[31mred⟨U+0007⟩ second line tab⟨U+0000⟩');
    expect([...row].length, row).toBeLessThanOrEqual(120);
    const json = JSON.parse(await cli(['dead', '-q', q, '--json'])) as {
      queue: { jobs: { edges: { node: { lastError: string } }[] } };
    };
    expect(json.queue.jobs.edges[0]?.node.lastError).toBe(error.slice(0, 1_024));
  });
});
