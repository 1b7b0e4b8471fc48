/**
 * `npm run demo`: the real server (embedded Redis unless REDIS_URL is set) plus a realistic
 * workload on queue `demo`, so a person who opens GraphiQL sees the ring move:
 *  - 36 tenants with skewed backlogs; `noisy-tenant` has a backlog of 3,000 (topped up to
 *    that at start, not added to what a restart finds) but is held to limit 3, while the
 *    others (limits 1–5, some unlimited) keep flowing;
 *  - two workers of concurrency 12 with job durations from 20 ms to 600 ms, some failing;
 *  - `tenant-07` paused for 10 s and resumed, every 25 s;
 *  - so that every view of the console has something to show: failing jobs carry a retry
 *    policy (exponential backoff from 500 ms, capped at 10 s, 3 attempts) — some fail for good
 *    and end in the Dead view with their errors and stacks, some fail once and then succeed
 *    after their backoff (seen in the Delayed view meanwhile); and scheduled jobs are enqueued
 *    with a delay of 5–60 s (the jobs and their processor: demo/jobs.ts).
 * Stop it with Ctrl-C; it drains the workers and stops the server.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from '../src/lanes/index.js';
import { loggerOf } from '../src/server/logger.js';
import { configOrExit, lastWords, startOrRefuse } from '../src/server/startOrRefuse.js';
import { processor, produceRound, random, WORKER_OPTIONS } from './jobs.js';
import { topUp } from './topUp.js';

const QUEUE = 'demo';
const TENANTS = Array.from({ length: 35 }, (_, i) => `tenant-${String(i + 1).padStart(2, '0')}`);
const NOISY = 'noisy-tenant';
/** The noisy tenant's backlog at start (jobs). */
const NOISY_BACKLOG = 3_000;
const PAUSED = 'tenant-07';

// A start refused (the port taken, Redis unreachable) ends in one line, as `npm start`'s does.
const config = configOrExit({ DATA_DIR: '.data/demo', LOG_LEVEL: 'warn', ...process.env });
const logger = await loggerOf(config);
const server = await startOrRefuse(config, logger).catch(lastWords);
const queue = server.engine.queue(QUEUE);

// Limits: the noisy tenant is capped; the rest get 1–5, every fifth unlimited.
await queue.setLimit(NOISY, 3);
for (const [i, tenant] of TENANTS.entries()) {
  if (i % 5 === 4) await queue.clearLimit(tenant);
  else await queue.setLimit(tenant, 1 + (i % 5));
}

const workers = [1, 2].map(() => new Worker(queue, processor, WORKER_OPTIONS));
for (const worker of workers) worker.on('error', (err) => logger.warn({ err }, 'worker error'));

let running = true;
const producer = (async () => {
  await topUp(queue, NOISY, NOISY_BACKLOG, () => ({ ms: random(50, 300) }));
  while (running) {
    await produceRound(queue, TENANTS);
    if ((await queue.counts()).pending < 200) {
      for (let i = 0; i < 200; i++) await queue.enqueue(NOISY, { ms: random(50, 300) });
    }
    await sleep(1_000);
  }
})();

const pauser = (async () => {
  while (running) {
    await sleep(15_000);
    if (!running) break;
    await queue.pause(PAUSED);
    await sleep(10_000);
    await queue.resume(PAUSED);
  }
})();

process.stdout.write(
  [
    `Ringmaster demo (queue "${QUEUE}"): console ${server.url}/  ·  GraphiQL ${server.url}/graphql`,
    'Open the console to watch the ring, or try in GraphiQL:',
    `  subscription { ringChanged(queue: "${QUEUE}") { ring added removed reason } }`,
    `  { queue(name: "${QUEUE}") { counts { groups onRing saturated pending active } group(id: "${NOISY}") { limit active pending state } } }`,
    'Ctrl-C to stop.',
    '',
  ].join('\n'),
);

const stop = async () => {
  running = false;
  await Promise.allSettled([producer, pauser]);
  await Promise.all(workers.map((w) => w.close()));
  await server.stop();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
