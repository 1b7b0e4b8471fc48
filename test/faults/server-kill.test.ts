/**
 * Fault: the API server process SIGKILLed under load — no shutdown, sockets cut mid-request —
 * and started again (`node --import tsx src/server/main.ts`, the entry `npm start` runs compiled)
 * on the same port with the same REDIS_URL.
 *
 * The 60 jobs enqueued before the kill are the shared workload (`workload()`: delayed ones,
 * FIXED and EXPONENTIAL backoffs, always-failing ones), and DELAYED_ACROSS more wait in `delayed`
 * for 10 minutes through the kill and the restart, then are promoted through the new server.
 * Jobs due during the restart are avoided on purpose: the new server's reaper would rightly
 * promote them, and the byte-for-byte comparison below proves that starting writes nothing.
 *
 * What must hold: all state lives in Redis, so the restart finds it intact (a byte-for-byte dump
 * of every key is the same before and after the restart: starting writes nothing); leases taken
 * before the kill are still valid afterwards (their tokens complete the jobs); a graphql-ws
 * client that reconnects gets a fresh SNAPSHOT and then live CHANGEs; a new subscription works;
 * the jobs delayed across the restart are still there and promoted by it; and the workload
 * drains (its failing jobs through their backoff waits in `delayed`, promoted by the new
 * server's reaper and the worker's claims) with I1–I5 holding and nothing lost.
 */
import { describe, expect, it } from 'vitest';
import { Queue } from '../../src/lanes/index.js';
import {
  ClaimDocument,
  CompleteDocument,
  EnqueueDelayedDocument,
  EnqueueDocument,
  PauseGroupDocument,
  PromoteJobDocument,
  QueueOverviewDocument,
  ResumeGroupDocument,
  RingChangedDocument,
  SetLimitDocument,
} from '../gql/graphql.js';
import { expirySnapshot } from '../support/lanes.js';
import { wsSubscribe } from '../support/live.js';
import {
  assertSound,
  closeWorkers,
  drained,
  Ledger,
  mustPost,
  post,
  report,
  type ServerProcess,
  startServerProcess,
  startWorkers,
  until,
  useScenario,
  workload,
  wsClient,
} from './support.js';

const GROUPS = ['g0', 'g1', 'g2', 'g3', 'g4', 'g5'];
/** Jobs in `delayed` when the server dies and while it starts again. */
const DELAYED_ACROSS = 6;

describe('the API server SIGKILLed and restarted', () => {
  const { redis } = useScenario();

  it('finds its state intact and serves subscriptions again', async () => {
    const name = `serverkill-${Date.now()}`;
    const queue = new Queue(redis.client(), name);
    const env = { REAP_INTERVAL_MS: '200', RESYNC_INTERVAL_MS: '1000' };
    const first: ServerProcess = await startServerProcess(redis.url, env);
    const endpoint = first.endpoint;
    const ledger = new Ledger();

    for (const [i, group] of GROUPS.entries()) {
      await mustPost(endpoint, SetLimitDocument, { queue: name, group, limit: (i % 3) + 1 });
    }
    for (const spec of workload(60, GROUPS)) {
      const { enqueue } = await mustPost(endpoint, EnqueueDelayedDocument, {
        queue: name,
        group: spec.group,
        payload: spec.payload,
        maxAttempts: spec.maxAttempts,
        delayMs: spec.delayMs,
        backoff: spec.backoff,
      });
      // No errors (mustPost), so the nullable mutation field is set.
      ledger.enqueued.add(enqueue?.id as string);
    }
    const across: string[] = [];
    for (let n = 0; n < DELAYED_ACROSS; n++) {
      const { enqueue } = await mustPost(endpoint, EnqueueDelayedDocument, {
        queue: name,
        group: GROUPS[n % GROUPS.length] as string,
        payload: { ms: 1, n: 500 + n },
        delayMs: 600_000,
      });
      across.push(enqueue?.id as string);
      ledger.enqueued.add(enqueue?.id as string);
    }
    // The workload's short delays (5–60 ms) promoted by this server's reaper before it dies, so
    // the new one finds nothing due when it starts.
    await until(
      "the workload's delayed jobs to be promoted",
      async () => (await queue.counts()).delayed === DELAYED_ACROSS,
      { timeoutMs: 10_000 },
    );
    await mustPost(endpoint, PauseGroupDocument, { queue: name, group: 'g5' });
    // Leases taken before the kill, long enough to outlive it.
    const leases: Array<{ id: string; token: string }> = [];
    for (let n = 0; n < 5; n++) {
      const { claim } = await mustPost(endpoint, ClaimDocument, { queue: name, leaseMs: 600_000 });
      if (claim?.token) leases.push({ id: claim.id, token: claim.token });
    }
    expect(leases).toHaveLength(5);

    const reconnecting = wsSubscribe(wsClient(endpoint, { reconnect: true }), RingChangedDocument, {
      queue: name,
    });
    expect((await reconnecting.events.next(10_000)).data?.ringChanged.reason).toBe('SNAPSHOT');

    // Enqueues in flight when the server dies.
    let loading = true;
    let loadFailures = 0;
    const load = Promise.all(
      Array.from({ length: 4 }, async (_, lane) => {
        for (let n = 0; loading; n++) {
          try {
            const { body } = await post(endpoint, EnqueueDocument, {
              queue: name,
              group: GROUPS[(lane + n) % 5] as string,
              payload: { ms: 1, n: 1_000 + lane * 10_000 + n },
            });
            if (body.data?.enqueue) ledger.enqueued.add(body.data.enqueue.id);
            else loadFailures++;
          } catch {
            loadFailures++;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
      }),
    );
    await until('the load to be running', () => ledger.enqueued.size >= 100);
    const eventsBeforeKill = reconnecting.events.items.length;

    await first.child.kill('SIGKILL');
    const killedAt = Date.now();
    // Whatever was in flight has failed by now (connection reset or refused).
    await until('a request to fail against the dead server', () => loadFailures > 0);
    loading = false;
    await load;

    // Absolute expiries (PEXPIRETIME), not PTTLs: since the ring log, `P:{Q}:ringwatched`
    // (the live feed's marker) carries a TTL, which counts down between two reads. The marker
    // itself is left out: the reconnecting subscription may renew it on the new server as soon
    // as it listens, which is the feed's own write, not the start's.
    const watched = queue.keys.ringWatched;
    const withoutMarker = (m: Map<string, string>) => {
      m.delete(watched);
      return m;
    };
    const before = withoutMarker(await expirySnapshot(queue.redis));
    const second = await startServerProcess(redis.url, env, first.port);
    const restartMs = Date.now() - killedAt;
    const after = withoutMarker(await expirySnapshot(queue.redis));
    expect(after, 'the restart changed the keyspace').toEqual(before);

    // The reconnecting client is served again: a fresh SNAPSHOT of the current ring.
    const ring = await queue.ring();
    await reconnecting.events.until(
      'a SNAPSHOT from the restarted server',
      () =>
        reconnecting.events.items
          .slice(eventsBeforeKill)
          .some((e) => e.data?.ringChanged.reason === 'SNAPSHOT'),
      20_000,
    );
    const resubscribedMs = Date.now() - killedAt;
    const snap = reconnecting.events.items
      .slice(eventsBeforeKill)
      .find((e) => e.data?.ringChanged.reason === 'SNAPSHOT');
    expect(snap?.data?.ringChanged.ring).toEqual(ring);
    const fresh = wsSubscribe(wsClient(second.endpoint), RingChangedDocument, { queue: name });
    expect((await fresh.events.next(10_000)).data?.ringChanged).toMatchObject({
      reason: 'SNAPSHOT',
      ring,
    });

    // Live changes reach both: resume the paused group.
    await mustPost(second.endpoint, ResumeGroupDocument, { queue: name, group: 'g5' });
    for (const sub of [reconnecting, fresh]) {
      await sub.events.until(
        'g5 back on the ring',
        () => sub.events.items.at(-1)?.data?.ringChanged.ring.includes('g5') === true,
        10_000,
      );
    }

    // The jobs delayed across the kill are there as they were; the new server promotes them.
    for (const id of across) {
      const { promoteJob } = await mustPost(second.endpoint, PromoteJobDocument, {
        queue: name,
        id,
      });
      expect(promoteJob).toMatchObject({ id, state: 'PENDING' });
    }
    expect((await queue.counts()).delayed).toBe(0);

    // Reads through the new server agree with Redis; the old leases are still good.
    const { queue: overview } = await mustPost(second.endpoint, QueueOverviewDocument, { name });
    // Every count the API exposes is the engine's (which may count more: delayed, completed).
    expect(await queue.counts()).toMatchObject(overview.counts);
    expect(overview.counts.active).toBe(5);
    for (const { id, token } of leases) {
      const { complete } = await mustPost(second.endpoint, CompleteDocument, {
        queue: name,
        id,
        token,
      });
      expect(complete?.state).toBe('COMPLETED');
      ledger.record({ type: 'completed', id, attempts: 1 });
    }

    const workers = await startWorkers(1, { redisUrl: redis.url, queue: name }, ledger);
    await until('the workload to drain', () => drained(queue), { timeoutMs: 30_000 });
    await closeWorkers(workers);
    const accounting = await assertSound(queue, ledger);
    expect(second.child.alive).toBe(true);

    report('server-kill', {
      keysCompared: before.size,
      restartMs,
      resubscribedMs,
      loadFailuresAtKill: loadFailures,
      delayedAcrossRestart: across.length,
      ...accounting,
    });
  }, 90_000);
});
