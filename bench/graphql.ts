/**
 * Section 3 — GraphQL overhead: autocannon (in this process) against one server process, the
 * `setLimit` mutation and a `queue { group(id) { … } }` query versus `{ __typename }` on the same
 * server, which costs HTTP, parsing, validation and Yoga's pipeline but no Redis. The ratio to
 * `__typename` is the share of the server's request rate left once the engine does real work.
 * Each operation gets the same total seconds of load, in slices taken in turn; every response
 * time is kept, so p50 and p99 are exact over all slices.
 */
import autocannon from 'autocannon';
import { Ringmaster } from '../src/lanes/index.js';
import { type BenchRedis, fresh } from './redis.js';
import { historyAdded } from './scriptCost.js';
import { graphql, startServer } from './server.js';
import { percentile, progress } from './util.js';

export interface GraphqlOptions {
  connections: number;
  /** Seconds of load per operation, in total. */
  seconds: number;
  /**
   * Slices the seconds are cut into; the operations take turns slice by slice, so a noisy
   * moment on a shared machine falls on all three alike rather than on one.
   */
  slices: number;
  /** Seconds of warm-up per operation (not reported). */
  warmupSeconds: number;
}

export interface LoadResult {
  requestsPerSec: number;
  /** Server process CPU (user + sys, /proc) per request, µs: steadier than a rate. */
  serverCpuUsecPerRequest: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
  non2xx: number;
}

export interface GraphqlResult {
  connections: number;
  seconds: number;
  typename: LoadResult;
  setLimit: LoadResult;
  groupQuery: LoadResult;
  /** requests/s ÷ `__typename` requests/s */
  setLimitRatio: number;
  groupQueryRatio: number;
}

const QUEUE = 'bench-graphql';

/** Groups of the queue, each with a limit and a few pending jobs. */
const GROUPS = 100;

/**
 * The operations, each as the body of its n-th request. Every setLimit changes its group's limit
 * (request n sets group n mod 100, first at 5, to 6 or 7 by its visit's parity; a group's visits
 * are 100 requests apart, 50 in flight): a limit already in force is a no-op that writes no
 * history entry, which would measure less than an operator's setLimit does.
 */
export const OPERATIONS = {
  typename: () => '{ __typename }',
  setLimit: (n: number) =>
    `mutation { setLimit(queue: "${QUEUE}", group: "tenant-${n % GROUPS}", limit: ${6 + (Math.floor(n / GROUPS) % 2)}) { id limit active pending paused onRing state } }`,
  groupQuery: () =>
    `{ queue(name: "${QUEUE}") { group(id: "tenant-7") { id limit active pending paused onRing state } } }`,
} as const;
type Operation = (n: number) => string;
/** Requests made of each operation so far, over every run: its next request's n. */
const sentBy = new Map<Operation, number>();

export async function graphqlOverhead(
  redis: BenchRedis,
  o: GraphqlOptions,
): Promise<GraphqlResult> {
  await fresh(redis.admin);
  // A queue with some life in it: 100 groups with limits and a few pending jobs each.
  const setupConn = redis.connect({ enableAutoPipelining: true });
  const setup = new Ringmaster(setupConn).queue(QUEUE);
  await Promise.all(Array.from({ length: GROUPS }, (_, g) => setup.setLimit(`tenant-${g}`, 5)));
  await Promise.all(
    Array.from({ length: 5 * GROUPS }, (_, i) => setup.enqueue(`tenant-${i % GROUPS}`, { i })),
  );
  setupConn.disconnect();

  const server = await startServer(redis.url);
  const historyBefore = await historyAdded(redis.admin, setup);
  try {
    for (const query of Object.values(OPERATIONS)) await graphql(server.url, query(0));
    if (o.warmupSeconds > 0) {
      progress(`graphql: warm-up (${o.warmupSeconds} s per operation)`);
      for (const query of Object.values(OPERATIONS)) {
        await run(server.url, query, o.connections, o.warmupSeconds);
      }
    }
    const names = Object.keys(OPERATIONS) as (keyof typeof OPERATIONS)[];
    const slices = Object.fromEntries(names.map((n) => [n, [] as Slice[]])) as Record<
      keyof typeof OPERATIONS,
      Slice[]
    >;
    const sliceSeconds = o.seconds / o.slices;
    progress(
      `graphql: ${names.length} operations × ${o.seconds} s (${o.slices} slices each), ${o.connections} connections`,
    );
    for (let i = 0; i < o.slices; i++) {
      for (const name of names) {
        const cpu0 = await server.cpu();
        const slice = await run(server.url, OPERATIONS[name], o.connections, sliceSeconds);
        slices[name].push({ ...slice, serverCpuUsec: (await server.cpu()) - cpu0 });
      }
    }
    // Still answering with data, not errors, after the load.
    for (const query of Object.values(OPERATIONS)) await graphql(server.url, query(0));
    const typename = summarize(slices.typename);
    const setLimit = summarize(slices.setLimit);
    const groupQuery = summarize(slices.groupQuery);
    const entries = (await historyAdded(redis.admin, setup)) ?? Number.POSITIVE_INFINITY;
    if (historyBefore !== undefined && entries - historyBefore < setLimit.requests) {
      throw new Error(
        `graphql: ${setLimit.requests} setLimits wrote ${entries - historyBefore} history entries: some changed nothing`,
      );
    }
    return {
      connections: o.connections,
      seconds: o.seconds,
      typename,
      setLimit,
      groupQuery,
      setLimitRatio: setLimit.requestsPerSec / typename.requestsPerSec,
      groupQueryRatio: groupQuery.requestsPerSec / typename.requestsPerSec,
    };
  } finally {
    await server.stop();
  }
}

interface Slice {
  requests: number;
  /** the server's CPU over the slice (µs) */
  serverCpuUsec: number;
  seconds: number;
  /** response times (ms) of every request of the slice */
  latencies: number[];
  errors: number;
  non2xx: number;
}

function summarize(slices: Slice[]): LoadResult {
  const requests = slices.reduce((sum, s) => sum + s.requests, 0);
  const seconds = slices.reduce((sum, s) => sum + s.seconds, 0);
  const latencies = slices.flatMap((s) => s.latencies);
  return {
    requestsPerSec: requests / seconds,
    serverCpuUsecPerRequest: slices.reduce((sum, s) => sum + s.serverCpuUsec, 0) / requests,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    requests,
    errors: slices.reduce((sum, s) => sum + s.errors, 0),
    non2xx: slices.reduce((sum, s) => sum + s.non2xx, 0),
  };
}

/** One autocannon run; every response time is kept, so slices merge into exact percentiles. */
function run(
  url: string,
  operation: Operation,
  connections: number,
  seconds: number,
): Promise<Omit<Slice, 'serverCpuUsec'>> {
  const latencies: number[] = [];
  const query = operation(0);
  let sent = sentBy.get(operation) ?? 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${url}/graphql`,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        requests: [
          {
            setupRequest: (request) => {
              const body = JSON.stringify({ query: operation(sent) });
              // Counted per operation across runs, so a group's setLimits keep alternating.
              sentBy.set(operation, ++sent);
              return { ...request, body };
            },
          },
        ],
        connections,
        duration: seconds,
      },
      (error, result) => {
        if (error) {
          reject(error);
          return;
        }
        if (result.errors > 0 || result.non2xx > 0) {
          progress(
            `graphql: ${result.errors} errors, ${result.non2xx} non-2xx answers for ${query}`,
          );
        }
        resolve({
          requests: result.requests.total,
          seconds: result.duration,
          latencies,
          errors: result.errors,
          non2xx: result.non2xx,
        });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      latencies.push(responseTime);
    });
  });
}
