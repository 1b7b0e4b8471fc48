/**
 * `ringmaster workers -q <queue>` (docs/cli.md, DESIGN.md §4.9 "Workers") run as a process
 * against a real server: the table and `--json` list the live workers as the registry holds
 * them in Redis — an engine Worker's host, pid, concurrency and version, a client's dashes —
 * and say when there are none.
 */
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { Worker } from '../../src/lanes/index.js';
import { pollUntil, uniqueQueueName } from '../support/lanes.js';
import { useTestServer } from '../support/server.js';
import { runCli, runCliOk } from './support.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
const running: Worker[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((w) => w.close({ timeoutMs: 1 })));
});

const cli = (args: string[]) => runCliOk(args, { RINGMASTER_URL: api.endpoint });

interface WorkerJson {
  id: string;
  hostname: string | null;
  pid: number | null;
  concurrency: number | null;
  active: number;
  startedAt: string;
  lastSeenAt: string;
  version: string | null;
  client: boolean;
}

describe('ringmaster workers', () => {
  it('lists a Worker and a client, as a table and as --json, as Redis holds them', async () => {
    const name = uniqueQueueName('cliworkers');
    const q = api.server.engine.queue(name);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await q.enqueue('g');
    const w = new Worker(q, () => held, { id: 'engine-a', concurrency: 4, heartbeatMs: 1_000 });
    running.push(w);
    await pollUntil('the job held', async () => (await q.workers())[0]?.active === 1);
    await q.workerHeartbeat({ id: 'client-b', heartbeatMs: 60_000 });

    const json = JSON.parse((await cli(['workers', '-q', name, '--json'])).stdout) as {
      queue: string;
      known: boolean;
      workers: WorkerJson[];
    };
    expect(json.queue).toBe(name);
    expect(json.known).toBe(true);
    expect(json.workers.map((x) => x.id)).toEqual(['client-b', 'engine-a']);
    const [client, engine] = json.workers as [WorkerJson, WorkerJson];
    expect(engine).toMatchObject({
      hostname: hostname(),
      pid: process.pid,
      concurrency: 4,
      active: 1,
      client: false,
    });
    expect(client).toMatchObject({ hostname: null, pid: null, concurrency: null, client: true });
    // As stored in Redis: the same ids, each with its JSON.
    expect((await q.redis.zrange(q.keys.workers, 0, -1)).sort()).toEqual(['client-b', 'engine-a']);
    const stored = JSON.parse((await q.redis.hget(q.keys.workerInfo, 'engine-a')) as string);
    expect(stored).toMatchObject({ pid: process.pid, concurrency: 4 });

    const { stdout } = await cli(['workers', '-q', name]);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.find((line) => line.includes('hostname'))).toMatch(
      /id\s+│?\s*hostname\s+│?\s*pid\s+│?\s*concurrency\s+│?\s*active\s+│?\s*started\s+│?\s*last seen\s+│?\s*version/,
    );
    const engineRow = lines.find((line) => line.includes('engine-a')) as string;
    expect(engineRow).toContain(hostname());
    expect(engineRow).toContain(String(process.pid));
    expect(engineRow).toContain(engine.startedAt);
    expect(engineRow).toContain(engine.version as string);
    const clientRow = lines.find((line) => line.includes('client-b')) as string;
    expect(clientRow.match(/ - /g)?.length).toBeGreaterThanOrEqual(3);
    expect(lines.at(-1)).toBe(`2 workers in ${name}, holding 1 job`);
    release();
  });

  it('says when there are none, and needs a queue', async () => {
    const name = uniqueQueueName('cliworkers');
    await api.server.engine.queue(name).enqueue('g');
    expect((await cli(['workers', '-q', name])).stdout).toBe(`no live workers in ${name}\n`);
    const missing = await runCli(['workers'], { RINGMASTER_URL: api.endpoint });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/workers needs a queue/);
  });
});
