/**
 * Fault: `SCRIPT FLUSH` and `FUNCTION FLUSH` over and over while mutations (GraphQL, through an
 * in-process server) and claims/completions (two Workers, one as a user that may not FCALL, so
 * it runs the scripts by EVALSHA) run — what a Redis restart without persistence of the script
 * cache or of the functions, a failover to a replica without them, or an operator does.
 *
 * What must hold: the reloads (the library loaded again after "Function not found"; ioredis'
 * NOSCRIPT fallback, EVAL, which caches the script again) make every call succeed — no GraphQL
 * error, no failed enqueue, no Worker error; Redis' own command stats prove both ran (FCALL
 * refused, then FUNCTION LOAD; EVALSHA refused with NOSCRIPT, then EVAL); I1–I5 hold and every
 * job completed exactly once.
 */
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from '../../src/lanes/index.js';
import {
  EnqueueDocument,
  PauseGroupDocument,
  ResumeGroupDocument,
  SetLimitDocument,
} from '../gql/graphql.js';
import { usingExternalRedis } from '../support/redis.js';
import {
  assertSound,
  drained,
  Ledger,
  produce,
  report,
  until,
  useScenario,
  workload,
} from './support.js';

const QUEUE = 'flush';
const GROUPS = Array.from({ length: 10 }, (_, i) => `team-${i}`);

/** `cmdstat_<name>` of INFO commandstats as numbers (calls, failed_calls, …). */
function commandStat(info: string, name: string) {
  const line = info.split('\n').find((l) => l.startsWith(`cmdstat_${name}:`)) ?? '';
  const fields = new Map(
    line
      .slice(line.indexOf(':') + 1)
      .split(',')
      .map((pair) => pair.split('=') as [string, string]),
  );
  const count = (field: string) => Number(fields.get(field) ?? 0);
  return { calls: count('calls'), failed: count('failed_calls') + count('rejected_calls') };
}

// External Redis: CONFIG RESETSTAT and SCRIPT FLUSH would disturb other users of it.
describe.skipIf(usingExternalRedis())('SCRIPT FLUSH under load', () => {
  const { redis, server } = useScenario({ server: { REAP_INTERVAL_MS: '50' } });

  it('reloads the scripts without a single failed call', async () => {
    const admin = redis.client();
    await admin.call(
      'ACL',
      'SETUSER',
      'nofcall',
      'reset',
      'on',
      '>pw',
      '~*',
      '&*',
      '+@all',
      '-fcall',
    );
    const queue = new Queue(redis.client(), QUEUE);
    for (const group of GROUPS) await queue.setLimit(group, 2);
    await admin.config('RESETSTAT');

    const ledger = new Ledger();
    const workers = [redis.client(), redis.client({ username: 'nofcall', password: 'pw' })].map(
      (client) => {
        const worker = new Worker(new Queue(client, QUEUE), async () => {}, {
          concurrency: 4,
          leaseMs: 10_000,
          parkTimeoutMs: 200,
        });
        ledger.watch(worker);
        return worker;
      },
    );

    let flushing = true;
    let flushes = 0;
    const flusher = (async () => {
      while (flushing) {
        await (flushes % 2 === 0 ? admin.script('FLUSH') : admin.call('FUNCTION', 'FLUSH'));
        flushes++;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();

    const graphqlErrors: unknown[] = [];
    const mutate = async () => {
      for (let n = 0; n < 150; n++) {
        const group = GROUPS[n % GROUPS.length] as string;
        const results: Array<{ status: number; body: { errors?: unknown; data?: unknown } }> =
          await Promise.all([
            server.request(SetLimitDocument, { queue: QUEUE, group, limit: 1 + (n % 4) }),
            server.request(PauseGroupDocument, { queue: QUEUE, group }),
            server.request(EnqueueDocument, { queue: QUEUE, group, payload: { n } }),
          ]);
        results.push(await server.request(ResumeGroupDocument, { queue: QUEUE, group }));
        for (const { status, body } of results) {
          if (status !== 200 || body.errors) graphqlErrors.push(body.errors ?? status);
        }
        const enqueued = results[2]?.body.data as { enqueue?: { id: string } } | undefined;
        if (enqueued?.enqueue) ledger.enqueued.add(enqueued.enqueue.id);
      }
    };
    await Promise.all([mutate(), produce(queue, workload(600, GROUPS, 0), ledger, { paceMs: 2 })]);
    for (const group of GROUPS) await queue.resume(group);
    await until('the workload to drain', () => drained(queue), { timeoutMs: 30_000 });
    flushing = false;
    await flusher;
    await Promise.all(workers.map((w) => w.close()));

    const info = await admin.info('commandstats');
    const evalsha = commandStat(info, 'evalsha');
    const evalStat = commandStat(info, 'eval');
    const fcall = commandStat(info, 'fcall');
    const functionLoad = commandStat(info, 'function|load');
    expect(graphqlErrors).toEqual([]);
    expect(ledger.enqueueErrors).toBe(0);
    expect(ledger.errors).toEqual([]);
    // The flushes hit: EVALSHA was refused (NOSCRIPT) and the scripts were sent again by EVAL.
    expect(evalsha.failed).toBeGreaterThan(0);
    expect(evalStat.calls).toBeGreaterThan(0);
    // And FCALL was refused (Function not found) and the library loaded again.
    expect(fcall.failed).toBeGreaterThan(0);
    expect(functionLoad.calls).toBeGreaterThan(1);

    const accounting = await assertSound(queue, ledger, { exactIds: true });
    expect(accounting.completed).toBe(750);
    report('script-flush', {
      flushes,
      evalshaCalls: evalsha.calls,
      noscript: evalsha.failed,
      evalFallbacks: evalStat.calls,
      fcallCalls: fcall.calls,
      functionNotFound: fcall.failed,
      functionLoads: functionLoad.calls,
      graphqlMutations: 600,
      ...accounting,
    });
  }, 90_000);
});
