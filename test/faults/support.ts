/**
 * Shared helpers of the fault and load tests (test/faults/*.test.ts):
 *
 * - real child processes run from `test/fixtures` with `node --import tsx` (workers, servers,
 *   subscriber swarms), and the real server entry `src/server/main.ts`, each killed by pid after
 *   the test that started it;
 * - a {@link Ledger} of what a workload did as its clients saw it (ids enqueued, completions,
 *   failures, lost leases) — fed by Worker events, in this process or over IPC;
 * - {@link assertSound}, the check every scenario ends with: invariants I1–I3 by `Queue.audit`,
 *   I4 by reading every job id ever issued, the stats identities, and the ledger against Redis:
 *   every job ended completed or dead exactly once, and none is lost;
 * - bounded polls, GraphQL over HTTP and graphql-ws against a server in another process;
 * - {@link useScenario}, a scenario's Redis and in-process server, and its teardown.
 *
 * Nothing here mocks Redis. Scenarios print their figures as one `[faults] <name> {json}` line
 * (and append it to the file named by `FAULTS_REPORT`, when set) for docs/RELIABILITY.md.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import getPort from 'get-port';
import { type ExecutionResult, print } from 'graphql';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { WebSocket } from 'ws';
import type { BackoffPolicy, Finding, Job, Queue, Worker } from '../../src/lanes/internal.js';
import type { PoisonKind } from '../fixtures/poison.js';
import { escapeGlob, scanAll } from '../support/lanes.js';
import { type StartTestRedisOptions, startTestRedis, type TestRedis } from '../support/redis.js';
import { startTestServer, type TestServer } from '../support/server.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

// ── polls and timing ─────────────────────────────────────────────────────────────────────

/** Poll `check` every `intervalMs` until it returns a truthy value; fail after `timeoutMs`. */
export async function until<T>(
  what: string,
  check: () => T | Promise<T>,
  { timeoutMs = 20_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A scenario's own pause (a freeze or an outage of a chosen length), never a wait for an event. */
export function hold(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Print a scenario's figures (see the module comment). */
export function report(name: string, figures: Record<string, unknown>): void {
  const line = `[faults] ${name} ${JSON.stringify(figures)}`;
  console.log(line);
  const file = process.env.FAULTS_REPORT;
  if (file) appendFileSync(file, `${line}\n`);
}

/** MiB, one decimal. */
export const mib = (bytes: number): number => Math.round((bytes / 1_048_576) * 10) / 10;

// ── child processes ──────────────────────────────────────────────────────────────────────

/** One child process of a test, with its output tail and, for fixtures, its IPC messages. */
export class Child {
  readonly output: string[] = [];
  readonly messages: Array<Record<string, unknown>> = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly #listeners = new Set<(message: Record<string, unknown>) => void>();

  constructor(
    readonly name: string,
    readonly proc: ChildProcess,
  ) {
    const keep = (chunk: string) => {
      this.output.push(chunk);
      if (this.output.length > 2_000) this.output.splice(0, this.output.length - 2_000);
    };
    proc.stdout?.setEncoding('utf8').on('data', keep);
    proc.stderr?.setEncoding('utf8').on('data', keep);
    proc.on('message', (message) => {
      const m = message as Record<string, unknown>;
      this.messages.push(m);
      if (this.messages.length > 10_000) this.messages.splice(0, 5_000);
      for (const listener of this.#listeners) listener(m);
    });
    // A dead child's IPC channel reports EPIPE on send; the test sees the exit instead.
    proc.on('error', () => {});
    this.exited = new Promise((resolve) =>
      proc.once('exit', (code, signal) => resolve({ code, signal })),
    );
  }

  get pid(): number {
    return this.proc.pid ?? -1;
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Every IPC message from now on. */
  onMessage(listener: (message: Record<string, unknown>) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The first IPC message (already received or to come) of `type`; fails if the child exits. */
  message(type: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
    const seen = this.messages.find((m) => m.type === type);
    if (seen) return Promise.resolve(seen);
    return this.next(type, timeoutMs);
  }

  /** The next IPC message of `type` from now on; fails after `timeoutMs` or if the child exits. */
  next(type: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const done = (error?: Error, value?: Record<string, unknown>) => {
        clearTimeout(timer);
        off();
        if (error) reject(error);
        else resolve(value as Record<string, unknown>);
      };
      const off = this.onMessage((m) => {
        if (m.type === type) done(undefined, m);
      });
      const timer = setTimeout(
        () => done(new Error(`${this.name}: no '${type}' within ${timeoutMs} ms\n${this.tail()}`)),
        timeoutMs,
      );
      void this.exited.then(({ code, signal }) =>
        done(new Error(`${this.name} exited (${code ?? signal}) before '${type}'\n${this.tail()}`)),
      );
    });
  }

  send(message: Record<string, unknown>): void {
    if (this.alive && this.proc.connected) this.proc.send(message);
  }

  /** Send `signal`; for a terminating one, wait (bounded) until the process is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.alive) return;
    this.proc.kill(signal);
    if (signal === 'SIGSTOP' || signal === 'SIGCONT') return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.exited,
      new Promise((resolve) => {
        timer = setTimeout(resolve, 10_000);
      }),
    ]);
    clearTimeout(timer);
    if (this.alive) throw new Error(`${this.name} (pid ${this.pid}) survived ${signal}`);
  }

  /** The last lines of its output, for failure messages. */
  tail(lines = 40): string {
    return this.output.join('').split('\n').slice(-lines).join('\n');
  }

  /** Its JSON log lines (pino, one object per line). */
  logs(): Array<Record<string, unknown>> {
    const out: Array<Record<string, unknown>> = [];
    for (const line of this.output.join('').split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        out.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // a line cut by the output tail
      }
    }
    return out;
  }
}

/** Children started by this test file and not yet reaped; see {@link killChildren}. */
const children = new Set<Child>();

/** The environment for a child: ours, minus the test runner's and any REDIS_URL. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(VITEST|REDIS_URL$|TEST_REDIS$|NODE_OPTIONS$|FAULTS_)/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/** `node <args>`, a child of this file. */
function start(name: string, args: string[], env: Record<string, string>, ipc: boolean): Child {
  const proc = spawn(process.execPath, args, {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  const child = new Child(name, proc);
  children.add(child);
  void child.exited.then(() => children.delete(child));
  return child;
}

/**
 * Run `test/fixtures/<fixture>.ts` with an IPC channel: bundled once for the run
 * (test/support/bundles.ts), or the source under tsx for a fixture not bundled there. `nodeArgs`
 * go before the script; `name` (default: the fixture's) names the child in failure messages.
 */
export function forkFixture(
  fixture: string,
  env: Record<string, string>,
  { nodeArgs = [], name = fixture }: { nodeArgs?: string[]; name?: string } = {},
): Child {
  const bundled = inject('fixtureBundles')[fixture];
  const script = bundled ? [bundled] : ['--import', 'tsx', `${FIXTURES}${fixture}.ts`];
  return start(name, [...nodeArgs, ...script], env, true);
}

/** SIGKILL every child this file started that is still running (each by its own pid). */
export async function killChildren(): Promise<void> {
  await Promise.all([...children].map((child) => child.kill('SIGKILL').catch(() => undefined)));
}

// ── the server as its own process (`npm start` without npm) ────────────────────────────────

/** The server (src/server/main.ts) in a child process, listening on `port`. */
export interface ServerProcess {
  readonly child: Child;
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `http://127.0.0.1:<port>/graphql` */
  readonly endpoint: string;
}

/**
 * Start the server entry, src/server/main.ts bundled once for the run (test/support/bundles.ts;
 * `npm start` runs it bundled too), with `REDIS_URL` and the given environment, on `port` (a
 * free one when omitted); resolves once it logged that it listens.
 */
export async function startServerProcess(
  redisUrl: string,
  env: Record<string, string> = {},
  port?: number,
): Promise<ServerProcess> {
  const p = port ?? (await getPort({ host: '127.0.0.1', exclude: [4000, 6379] }));
  const child = start(
    `server:${p}`,
    [inject('serverBundle')],
    { REDIS_URL: redisUrl, PORT: String(p), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    false,
  );
  await until(
    `the server on port ${p} to listen`,
    () => {
      if (!child.alive) throw new Error(`server on port ${p} exited at start\n${child.tail()}`);
      return child.logs().some((line) => line.msg === 'ringmaster listening');
    },
    { timeoutMs: 30_000, intervalMs: 50 },
  );
  const url = `http://127.0.0.1:${p}`;
  return { child, port: p, url, endpoint: `${url}/graphql` };
}

// ── GraphQL clients for a server in another process ─────────────────────────────────────

export type Wire<T> = ExecutionResult<T> & {
  errors?: { message: string; extensions?: { code?: string } }[];
};

/** POST one operation; the HTTP status and body. Network errors reject. */
export async function post<T, V>(
  endpoint: string,
  document: TypedDocumentNode<T, V>,
  variables?: V,
  { timeoutMs = 30_000 }: { timeoutMs?: number } = {},
): Promise<{ status: number; body: Wire<T> }> {
  const response = await fetch(endpoint, {
    method: 'POST',
    signal: AbortSignal.timeout(timeoutMs),
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
    },
    body: JSON.stringify({ query: print(document), variables }),
  });
  return { status: response.status, body: (await response.json()) as Wire<T> };
}

/** POST one operation that must succeed; its data. */
export async function mustPost<T, V>(
  endpoint: string,
  document: TypedDocumentNode<T, V>,
  variables?: V,
): Promise<T> {
  const { status, body } = await post(endpoint, document, variables);
  if (status !== 200 || body.errors !== undefined || body.data == null) {
    throw new Error(`HTTP ${status}: ${JSON.stringify(body)}`);
  }
  return body.data;
}

/**
 * A graphql-ws client of `endpoint` (http URL). `reconnect`: retry a lost socket quickly and
 * for long (a restarted server), as a real admin UI would; otherwise the socket is not retried.
 */
export function wsClient(endpoint: string, { reconnect = false } = {}): Client {
  const client = createClient({
    url: endpoint.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    lazy: false,
    // A socket closed by a killed server is part of the scenario; subscriptions see it.
    onNonLazyError: () => {},
    retryAttempts: reconnect ? 200 : 0,
    shouldRetry: () => reconnect,
    retryWait: () => new Promise((resolve) => setTimeout(resolve, 100)),
  });
  clients.add(client);
  return client;
}

const clients = new Set<Client>();

/** Dispose every graphql-ws client made by {@link wsClient}, then kill every child. */
export async function cleanup(): Promise<void> {
  await Promise.all([...clients].map((client) => client.dispose()));
  clients.clear();
  await killChildren();
}

/** `get()`'s value, read at each use: a hook's result, named before the hook has run. */
function late<T extends object>(get: () => T): T {
  return new Proxy({} as T, {
    get(_target, name) {
      const target = get();
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * A scenario's Redis (`startTestRedis(redis)`) and, with `server` (its environment), an
 * in-process API server over it, for the enclosing `describe`: started in `beforeAll`; in
 * `afterAll` (after the describe's own), {@link cleanup}, then the server and the Redis are
 * stopped. Both answers may be named at once and used inside tests and hooks.
 */
export function useScenario(
  options: { redis?: StartTestRedisOptions; server?: Record<string, string> } = {},
): { redis: TestRedis; server: TestServer } {
  let redis: TestRedis | undefined;
  let server: TestServer | undefined;
  beforeAll(async () => {
    redis = await startTestRedis(options.redis);
    if (options.server) server = await startTestServer(redis.url, options.server);
  });
  afterAll(async () => {
    await cleanup();
    await server?.stop();
    await redis?.stop();
  });
  const running = <T>(what: string, value: T | undefined): T => {
    if (value === undefined) throw new Error(`useScenario: no ${what} running here`);
    return value;
  };
  return {
    redis: late(() => running('Redis', redis)),
    server: late(() => running('server', server)),
  };
}

// ── the ledger and the final check ───────────────────────────────────────────────────────

/** What a worker fixture reports over IPC (see test/fixtures/fault-worker.ts). */
export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'started'; id: string; attempts: number }
  | { type: 'completed'; id: string; attempts: number }
  | { type: 'failed'; id: string; state: string }
  | { type: 'leaseLost'; id: string }
  | { type: 'error'; message: string }
  | { type: 'closed' };

/** A workload as its clients saw it. */
export class Ledger {
  /** Ids whose enqueue was acknowledged. */
  readonly enqueued = new Set<string>();
  /** Enqueue calls that failed: each may or may not have run in Redis. */
  enqueueErrors = 0;
  /** Job id → completion events (must end at 1 each). */
  readonly completions = new Map<string, number>();
  /** Job id → attempts when completed. */
  readonly completedAttempts = new Map<string, number>();
  /** Job id → states after a failed run (PENDING again, or DEAD). */
  readonly failures = new Map<string, string[]>();
  /** Jobs whose outcome a worker could not record (lease lost; may be recorded elsewhere). */
  readonly leaseLost = new Map<string, number>();
  /** Jobs started (count), and errors reported by workers (messages). */
  started = 0;
  readonly errors: string[] = [];
  /** Time of the last completion event (ms, this process' clock). */
  lastCompletionAt = 0;
  readonly #completionWaiters = new Set<() => void>();

  get completed(): number {
    return this.completions.size;
  }

  /** Record one message of a worker fixture. */
  record(message: Record<string, unknown>): void {
    const m = message as WorkerMessage;
    switch (m.type) {
      case 'started':
        this.started++;
        break;
      case 'completed':
        this.completions.set(m.id, (this.completions.get(m.id) ?? 0) + 1);
        this.completedAttempts.set(m.id, m.attempts);
        this.lastCompletionAt = Date.now();
        for (const waiter of this.#completionWaiters) waiter();
        break;
      case 'failed':
        this.failures.set(m.id, [...(this.failures.get(m.id) ?? []), m.state]);
        break;
      case 'leaseLost':
        this.leaseLost.set(m.id, (this.leaseLost.get(m.id) ?? 0) + 1);
        break;
      case 'error':
        this.errors.push(m.message);
        break;
      default:
    }
  }

  /** Record the events of a Worker of this process. */
  watch(worker: Worker): void {
    worker.on('completed', (job: Job) =>
      this.record({ type: 'completed', id: job.id, attempts: job.attempts }),
    );
    worker.on('failed', (job: Job) =>
      this.record({ type: 'failed', id: job.id, state: job.state }),
    );
    worker.on('leaseLost', (job: Job) => this.record({ type: 'leaseLost', id: job.id }));
    worker.on('error', (error: Error) => this.record({ type: 'error', message: error.message }));
  }

  /** Resolves at the next completion event after now. */
  nextCompletion(timeoutMs = 30_000): Promise<number> {
    return new Promise((resolve, reject) => {
      const waiter = () => {
        clearTimeout(timer);
        this.#completionWaiters.delete(waiter);
        resolve(Date.now());
      };
      const timer = setTimeout(() => {
        this.#completionWaiters.delete(waiter);
        reject(new Error(`no completion within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#completionWaiters.add(waiter);
    });
  }
}

/** A queue's totals, as the final check reads them. */
export interface Accounting {
  /** Job ids ever issued (`seq`). */
  jobs: number;
  completed: number;
  dead: number;
  claimed: number;
  retried: number;
  reaped: number;
  /** Claims beyond one per job: re-runs after a retry, a reap or a lost lease (count). */
  reruns: number;
  /** Completion events seen by the ledger (0 without one). */
  completionEvents: number;
  /** Jobs completed in Redis whose completion reply never reached a worker (count). */
  completedUnseen: number;
  /** Ids issued that no acknowledged enqueue returned (count; a retried, lost reply). */
  unacknowledgedIds: number;
}

/**
 * True once `queue` has nothing pending, delayed or active and every issued job is completed or
 * dead.
 */
export async function drained(queue: Queue): Promise<boolean> {
  const [seq, stats, active] = await Promise.all([
    queue.redis.get(queue.keys.seq),
    queue.stats(),
    queue.redis.zcard(queue.keys.active),
  ]);
  const counts = await queue.counts();
  return (
    active === 0 &&
    counts.pending === 0 &&
    counts.delayed === 0 &&
    stats.completed + stats.dead === Number(seq ?? 0) &&
    stats.enqueued === Number(seq ?? 0)
  );
}

const INVARIANT_KINDS = new Set(['I1', 'I2', 'I3', 'LEASE']);

/**
 * The check every fault scenario ends with, on a queue whose workload has finished:
 * - `Queue.audit()`: no I1, I2, I3 or LEASE finding (and none of any other kind: the queue is
 *   quiet, so even the recounted totals must agree);
 * - I3 directly: `gactive` holds no field (nothing is active; a field at 0 or below is a leak);
 * - I4 for every id ever issued (1..seq): completed — kept by the completed retention (hash
 *   state completed, in `completed` and its group's completed index) or gone (no hash, in no
 *   index) — or dead (in `dead`, hash state dead); never both, never lost (lanes and `active`
 *   are empty, checked above);
 * - the stats: enqueued = seq, completed + dead = seq (each job ended exactly once),
 *   completed = the ids completed (kept or gone), dead = |dead|, claimed = completed + retried + reaped +
 *   dead by retry (every claim ended exactly once), totals pending = active = 0;
 * - the ledger, when given: every acknowledged enqueue is one of those ids; no job has two
 *   completion events; no job completed by a worker is dead; a job completed in Redis without a
 *   completion event is one whose worker reported a lost lease or an error (its reply was lost
 *   to the fault); with `exactIds`, every issued id was acknowledged by exactly one enqueue.
 * I5 (a stale token never completes) shows as "no job completed twice" and "completed XOR dead".
 */
export async function assertSound(
  queue: Queue,
  ledger?: Ledger,
  { exactIds = false }: { exactIds?: boolean } = {},
): Promise<Accounting> {
  const r = queue.redis;
  const k = queue.keys;

  const audit = await queue.audit();
  const invariantFindings = audit.findings.filter((f: Finding) => INVARIANT_KINDS.has(f.kind));
  expect(invariantFindings, 'audit: invariant I1-I3 / lease findings').toEqual([]);
  expect(audit.findings, 'audit: other findings on a quiet queue').toEqual([]);

  const [gactive, seqText, deadIds, keptIds, activeCount, lanes, stats, totals] = await Promise.all(
    [
      r.hgetall(k.gactive),
      r.get(k.seq),
      r.zrange(k.dead, 0, -1),
      r.zrange(k.completed, 0, -1),
      r.zcard(k.active),
      scanAll(r, `${escapeGlob(k.base)}g:*:pending`),
      queue.stats(),
      r.hmget(k.stats, 'pending', 'active', 'delayed'),
    ],
  );
  expect(gactive, 'gactive after the workload (a leaked or negative permit)').toEqual({});
  expect(activeCount, 'active jobs after the workload').toBe(0);
  expect(lanes, 'non-empty lanes after the workload').toEqual([]);
  expect(totals.map(Number), 'stats totals pending, active, delayed').toEqual([0, 0, 0]);
  expect(await r.zcard(k.delayed), 'delayed jobs after the workload').toBe(0);

  const seq = Number(seqText ?? 0);
  const dead = new Set(deadIds);
  const kept = new Set(keptIds);
  const pipeline = r.pipeline();
  for (let id = 1; id <= seq; id++)
    pipeline.hmget(k.job(String(id)), 'state', 'lastError', 'group');
  const rows = ((await pipeline.exec()) ?? []).map(([error, value]) => {
    if (error) throw error;
    return value as [string | null, string | null, string | null];
  });
  const completedIds = new Set<string>();
  const misplaced: string[] = [];
  let deadByReap = 0;
  const keptGroups = new Map<string, string>();
  rows.forEach(([state, lastError, group], i) => {
    const id = String(i + 1);
    if (state === null && !dead.has(id) && !kept.has(id)) completedIds.add(id);
    else if (state === 'completed' && kept.has(id) && !dead.has(id) && group !== null) {
      completedIds.add(id);
      keptGroups.set(id, group);
    } else if (!(state === 'dead' && dead.has(id) && !kept.has(id))) {
      misplaced.push(`${id}:${state}`);
    } else if (lastError === 'lease expired') deadByReap++;
  });
  expect(misplaced, 'jobs neither completed nor dead (I4)').toEqual([]);
  for (const id of dead) {
    expect(Number(id) >= 1 && Number(id) <= seq, `dead id ${id} was issued`).toBe(true);
  }
  for (const id of kept) {
    expect(keptGroups.has(id), `kept completed id ${id} was issued and completed`).toBe(true);
  }
  // Each kept job is in its group's completed index too (I4), and those indexes hold no other.
  const groupsOfKept = new Set(keptGroups.values());
  let inGroupIndexes = 0;
  for (const group of groupsOfKept) {
    const members = await r.zrange(k.groupCompleted(group), 0, -1);
    for (const id of members) {
      expect(keptGroups.get(id), `g:${group}:completed holds ${id}`).toBe(group);
    }
    inGroupIndexes += members.length;
  }
  expect(inGroupIndexes, 'kept completed jobs in their group indexes').toBe(kept.size);

  expect(stats.enqueued, 'stats.enqueued = ids issued').toBe(seq);
  expect(stats.completed + stats.dead, 'completed + dead = jobs (each ended once)').toBe(seq);
  expect(stats.completed, 'stats.completed = jobs completed, kept or gone').toBe(completedIds.size);
  expect(stats.dead, 'stats.dead = |dead|').toBe(dead.size);
  // Each claim ended exactly once: completed, retried back to its lane (`retried`), reaped
  // (`reaped`, whether back to its lane or dead), or retried into `dead` — the dead jobs whose
  // last error is not the reaper's (workers here always give a reason when a job fails).
  expect(stats.claimed, 'claimed = completed + retried + reaped + dead by retry').toBe(
    stats.completed + stats.retried + stats.reaped + (dead.size - deadByReap),
  );

  let completedUnseen = 0;
  let unacknowledgedIds = 0;
  if (ledger) {
    for (const id of ledger.enqueued) {
      expect(completedIds.has(id) || dead.has(id), `enqueued job ${id} ended`).toBe(true);
    }
    const twice = [...ledger.completions].filter(([, n]) => n !== 1);
    expect(twice, 'jobs with more than one completion event').toEqual([]);
    for (const id of ledger.completions.keys()) {
      expect(completedIds.has(id), `job ${id} reported completed is completed in Redis`).toBe(true);
    }
    const unseen = [...completedIds].filter((id) => !ledger.completions.has(id));
    completedUnseen = unseen.length;
    const unexplained = unseen.filter((id) => !ledger.leaseLost.has(id));
    expect(
      unexplained.length,
      `jobs completed without a completion event, lost lease or error: ${unexplained.slice(0, 10)}`,
    ).toBeLessThanOrEqual(ledger.errors.length);
    unacknowledgedIds = seq - ledger.enqueued.size;
    if (exactIds) {
      expect(ledger.enqueued.size, 'every issued id acknowledged once').toBe(seq);
    } else {
      expect(unacknowledgedIds).toBeGreaterThanOrEqual(0);
    }
  }

  return {
    jobs: seq,
    completed: stats.completed,
    dead: stats.dead,
    claimed: stats.claimed,
    retried: stats.retried,
    reaped: stats.reaped,
    reruns: stats.claimed - seq,
    completionEvents: ledger?.completed ?? 0,
    completedUnseen,
    unacknowledgedIds,
  };
}

// ── workloads ────────────────────────────────────────────────────────────────────────────

/**
 * One job of a workload: its group and payload (`ms` of work; `fail`: always throws;
 * `failFirst`: throws on its first attempt only; `poison`: hands that poison pill of
 * test/fixtures/poison.ts over instead), and the issue-16 options it is enqueued with
 * (a delay, a retry policy), so every fault scenario also covers delayed jobs, backoff waits and
 * their promotion.
 */
export interface JobSpec {
  group: string;
  payload: { ms: number; fail?: true; failFirst?: true; poison?: PoisonKind; n: number };
  maxAttempts: number;
  delayMs?: number;
  backoff?: BackoffPolicy;
  priority?: number;
}

/**
 * `count` jobs over `groups`, round-robin, each working 2–20 ms; every `failEvery`-th one always
 * throws (so it ends dead after `maxAttempts` 2, having waited a FIXED 10 ms backoff once).
 * Every 11th fails its first attempt only and waits an EXPONENTIAL backoff (5 ms, cap 50 ms,
 * jitter 0.5) before it runs again; every 7th is enqueued delayed by 5–60 ms. Every 5th is of
 * priority 2 and every 9th of priority 8 (the rest the default), so groups move between the
 * levels of the rota through every fault (DESIGN.md §3, "Levels").
 */
export function workload(count: number, groups: string[], failEvery = 25): JobSpec[] {
  return Array.from({ length: count }, (_, n) => {
    const fail = failEvery > 0 && n % failEvery === failEvery - 1;
    const flaky = !fail && n % 11 === 10;
    const spec: JobSpec = {
      group: groups[n % groups.length] as string,
      payload: fail
        ? { ms: 2, fail: true, n }
        : flaky
          ? { ms: 2, failFirst: true, n }
          : { ms: 2 + ((n * 7) % 19), n },
      maxAttempts: fail ? 2 : 5,
    };
    if (fail) spec.backoff = { type: 'FIXED', delayMs: 10, maxDelayMs: null, jitter: 0 };
    if (flaky) spec.backoff = { type: 'EXPONENTIAL', delayMs: 5, maxDelayMs: 50, jitter: 0.5 };
    if (n % 7 === 6) spec.delayMs = 5 + ((n * 13) % 56);
    if (n % 5 === 4) spec.priority = 2;
    else if (n % 9 === 8) spec.priority = 8;
    return spec;
  });
}

/**
 * Enqueue `jobs` on `queue`, `parallel` at a time, each lane resting `paceMs` after each job (a
 * steady producer, so the workload is still arriving when a fault hits); a failed enqueue (Redis
 * down) is counted in the ledger and tried again after `retryMs`. Stops when all are in.
 */
export async function produce(
  queue: Queue,
  jobs: JobSpec[],
  ledger: Ledger,
  {
    parallel = 8,
    paceMs = 0,
    retryMs = 100,
  }: { parallel?: number; paceMs?: number; retryMs?: number } = {},
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) {
      const spec = jobs[next++] as JobSpec;
      for (;;) {
        try {
          const job = await queue.enqueue(spec.group, spec.payload, {
            maxAttempts: spec.maxAttempts,
            delayMs: spec.delayMs,
            backoff: spec.backoff,
            priority: spec.priority,
          });
          ledger.enqueued.add(job.id);
          if (paceMs > 0) await hold(paceMs);
          break;
        } catch {
          ledger.enqueueErrors++;
          await hold(retryMs);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
}

/** Start `count` worker fixtures on `queue`; resolves once each is claiming. */
export async function startWorkers(
  count: number,
  env: {
    redisUrl: string;
    queue: string;
    concurrency?: number;
    leaseMs?: number;
    hang?: boolean;
    /** The Worker's own reaper: its interval (ms), or false for none. Default: the Worker's. */
    reaper?: false | number;
  },
  ledger: Ledger,
): Promise<Child[]> {
  const workers = Array.from({ length: count }, (_, i) => {
    const child = forkFixture(
      'fault-worker',
      {
        FAULT_REDIS_URL: env.redisUrl,
        FAULT_QUEUE: env.queue,
        FAULT_CONCURRENCY: String(env.concurrency ?? 4),
        FAULT_LEASE_MS: String(env.leaseMs ?? 2_000),
        FAULT_HANG: env.hang ? '1' : '0',
        FAULT_REAP: env.reaper === false ? '0' : '1',
        ...(typeof env.reaper === 'number' ? { FAULT_REAP_MS: String(env.reaper) } : {}),
      },
      { name: `worker-${i}` },
    );
    child.onMessage((m) => ledger.record(m));
    return child;
  });
  await Promise.all(workers.map((w) => w.message('ready')));
  return workers;
}

/** Ask worker fixtures to close (finish in-flight jobs) and wait until each has exited. */
export async function closeWorkers(workers: Child[]): Promise<void> {
  await Promise.all(
    workers.map(async (w) => {
      if (!w.alive) return;
      w.send({ type: 'close' });
      await w.exited;
    }),
  );
}
