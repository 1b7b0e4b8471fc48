/**
 * The shared per-event execution (src/server/plugins/sharedExecution.ts), through Yoga over real HTTP
 * (SSE): subscribers that share an event, a document, variables and a scope share one
 * execution; any difference gets its own; each still gets its own source stream, closed when it
 * goes. A small schema stands in for Ringmaster's so a test can count resolver calls.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse, print } from 'graphql';
import { createSchema, createYoga, Repeater } from 'graphql-yoga';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  takeSharedStream,
  useSharedSubscriptionExecution,
} from '../../src/server/plugins/sharedExecution.js';
import { dataOf, type LiveSubscription, sseSubscribe, type WireResult } from '../support/live.js';

interface Tick {
  n: number;
}
interface TickResult {
  tick: { n: number; tag: string | null; scope: string };
}
const TICK = parse(
  'subscription Tick($tag: String) { tick(tag: $tag) { n tag scope } }',
) as TypedDocumentNode<TickResult, { tag?: string }>;
const TICK_N_ONLY = parse('subscription { tick { n } }') as TypedDocumentNode<
  { tick: { n: number } },
  Record<string, never>
>;

let server: Server;
let endpoint: string;
let executions: number;
let openSources: number;
/** Every open source stream's push: one event object goes to all of them, as in the live feed. */
let listeners: Set<(tick: Tick) => void>;
let latest: Tick | undefined;

beforeEach(async () => {
  executions = 0;
  openSources = 0;
  listeners = new Set();
  latest = undefined;
  const yoga = createYoga({
    logging: false,
    plugins: [
      useSharedSubscriptionExecution({
        scopeOf: (context) =>
          (context as { request: Request }).request.headers.get('authorization') ?? '',
      }),
    ],
    schema: createSchema<{ request: Request }>({
      typeDefs: /* GraphQL */ `
        type Query { ok: Boolean }
        type Tick { n: Int! tag: String scope: String! }
        type Subscription { tick(tag: String): Tick! }
      `,
      resolvers: {
        Subscription: {
          tick: {
            // A Repeater ends at once on return(), even while waiting for the next event.
            subscribe: () =>
              new Repeater<Tick>(async (push, stop) => {
                const listener = (tick: Tick) => void push(tick);
                // Like the live feed: a new subscriber starts from the latest event.
                if (latest) void push(latest);
                listeners.add(listener);
                openSources += 1;
                await stop;
                listeners.delete(listener);
                openSources -= 1;
              }),
            resolve: (tick: Tick) => tick,
          },
        },
        Tick: {
          // Counted once per execution of the selection (every selection here asks for `n`).
          n: (tick: Tick) => {
            executions += 1;
            return tick.n;
          },
          tag: (_tick: Tick, _args: unknown, _ctx: unknown, info) =>
            (info.variableValues.tag as string | undefined) ?? null,
          scope: (_tick: Tick, _args: unknown, ctx: { request: Request }) =>
            ctx.request.headers.get('authorization') ?? '',
        },
      },
    }),
  });
  server = createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});

afterEach(async () => {
  // Every test closes its subscriptions; their sources must end with them.
  await expect.poll(() => openSources, { timeout: 5_000 }).toBe(0);
  const closed = new Promise((resolve) => server.close(resolve));
  server.closeAllConnections();
  await closed;
});

function publishTick(tick: Tick): void {
  latest = tick;
  for (const listener of listeners) listener(tick);
}

/** Publish one event object to every subscriber, once all `subs` are listening. */
async function publish(subs: LiveSubscription<unknown>[], n: number): Promise<void> {
  await expect.poll(() => openSources, { timeout: 5_000 }).toBe(subs.length);
  publishTick({ n });
}

describe('shared subscription execution', () => {
  it('executes an event once for subscribers with the same document, variables and scope', async () => {
    const subs = Array.from({ length: 5 }, () => sseSubscribe(endpoint, TICK, { tag: 'a' }));
    await publish(subs, 1);
    for (const sub of subs) {
      expect(dataOf(await sub.events.next())).toEqual({ tick: { n: 1, tag: 'a', scope: '' } });
    }
    expect(executions).toBe(1);
    await publish(subs, 2);
    for (const sub of subs) expect(dataOf(await sub.events.next()).tick.n).toBe(2);
    expect(executions).toBe(2);
    for (const sub of subs) sub.close();
  });

  it('executes separately for each document, variables and scope, and never mixes their results', async () => {
    const subs = [
      sseSubscribe(endpoint, TICK, { tag: 'a' }),
      sseSubscribe(endpoint, TICK, { tag: 'a' }),
      sseSubscribe(endpoint, TICK, { tag: 'b' }),
      sseSubscribe(endpoint, TICK, { tag: 'a' }, { token: 'other' }),
      sseSubscribe(endpoint, TICK_N_ONLY, {}),
    ];
    await publish(subs as LiveSubscription<unknown>[], 7);
    const [a1, a2, b, other, nOnly] = await Promise.all(subs.map((s) => s.events.next()));
    expect(dataOf(a1 as never)).toEqual({ tick: { n: 7, tag: 'a', scope: '' } });
    expect(dataOf(a2 as never)).toEqual({ tick: { n: 7, tag: 'a', scope: '' } });
    expect(dataOf(b as never)).toEqual({ tick: { n: 7, tag: 'b', scope: '' } });
    expect(dataOf(other as never)).toEqual({ tick: { n: 7, tag: 'a', scope: 'Bearer other' } });
    expect(dataOf(nOnly as never)).toEqual({ tick: { n: 7 } });
    // a1 and a2 share; b, other and nOnly each differ in one thing.
    expect(executions).toBe(4);
    for (const sub of subs) sub.close();
  });

  it('executes afresh for a subscriber that joins later and is handed the same event', async () => {
    const first = sseSubscribe(endpoint, TICK, { tag: 'a' });
    await publish([first], 1);
    expect(dataOf(await first.events.next()).tick.n).toBe(1);
    expect(executions).toBe(1);
    // The same event object, a later moment: a field that reads more than the event (the
    // ring position of Group.reason) must not be answered from the first delivery.
    const late = sseSubscribe(endpoint, TICK, { tag: 'a' });
    expect(dataOf(await late.events.next()).tick.n).toBe(1);
    expect(executions).toBe(2);
    first.close();
    late.close();
  });

  it('gives each subscriber its own source stream, ended when that subscriber goes', async () => {
    const subs = [sseSubscribe(endpoint, TICK, {}), sseSubscribe(endpoint, TICK, {})];
    await publish(subs, 1);
    await Promise.all(subs.map((s) => s.events.next()));
    subs[0]?.close();
    await expect.poll(() => openSources, { timeout: 5_000 }).toBe(1);
    publishTick({ n: 2 });
    expect(dataOf(await (subs[1] as LiveSubscription<TickResult>).events.next()).tick.n).toBe(2);
    subs[1]?.close();
    await expect.poll(() => openSources, { timeout: 5_000 }).toBe(0);
  });

  it('answers variables that do not coerce as the executor does, with BAD_USER_INPUT', async () => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: print(TICK), variables: { tag: 5 } }),
    });
    // Yoga answers on the stream it was asked for: one `next` with the errors, then `complete`.
    expect(response.status).toBe(400);
    const data = (await response.text()).match(/^data: (\{.*\})$/m)?.[1];
    const result = JSON.parse(data ?? 'null') as WireResult<TickResult>;
    expect(result.data).toBeUndefined();
    expect(result.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    expect(openSources).toBe(0);
  });
});

describe('takeSharedStream (the WebSocket transport takes the stream itself)', () => {
  const yoga = createYoga({
    logging: false,
    plugins: [useSharedSubscriptionExecution({ scopeOf: () => '' })],
    schema: createSchema({
      typeDefs: /* GraphQL */ `
        type Query { ok: Boolean }
        type Subscription { boom: Int! }
      `,
      resolvers: {
        Subscription: {
          boom: {
            // One event, then the source fails with a message a client must not see.
            subscribe: async function* () {
              yield { boom: 1 };
              throw new Error('secret cause');
            },
          },
        },
      },
    }),
  });

  async function subscribe(context: object) {
    const enveloped = yoga.getEnveloped(context);
    return enveloped.subscribe({
      schema: enveloped.schema,
      document: parse('subscription { boom }'),
      contextValue: context,
    });
  }

  it('hands over the stream once, and a failure of its source as mapError makes it', async () => {
    const context = {};
    await subscribe(context);
    const stream = takeSharedStream(context, () => new Error('masked'));
    expect(takeSharedStream(context, (e) => e)).toBeUndefined();
    const iterator = (stream as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ value: { data: { boom: 1 } }, done: false });
    await expect(iterator.next()).rejects.toThrow(/^masked$/);
  });

  it('has no stream for an operation that made none', async () => {
    const context = {};
    await yoga.getEnveloped(context).execute({
      schema: yoga.getEnveloped(context).schema,
      document: parse('{ ok }'),
      contextValue: context,
    });
    expect(takeSharedStream(context, (e) => e)).toBeUndefined();
  });
});
