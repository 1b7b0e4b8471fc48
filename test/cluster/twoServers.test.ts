/**
 * Two API servers on one Redis Cluster behind a round-robin proxy (each HTTP request and each
 * WebSocket to the next server), with subscribers on both, through a SIGKILL of the master that
 * owns the watched queue (DESIGN.md §6 "Redis Cluster", docs/RELIABILITY.md). Checked: every
 * mutation sent through the proxy during the failover is answered without an error (the
 * cluster budgets outlast the election), every subscriber on either server gets a RESYNC and
 * then the changes made after the promotion, and the queue is sound at the end.
 */
import http from 'node:http';
import net from 'node:net';
import { type DocumentNode, print } from 'graphql';
import { createClient } from 'graphql-ws';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { clusterOptions, Ringmaster } from '../../src/lanes/index.js';
import {
  EnqueueDocument,
  PauseGroupDocument,
  ResumeGroupDocument,
  RingChangedDocument,
  type RingChangedSubscription,
  SetLimitDocument,
} from '../gql/graphql.js';
import { useTestCluster } from '../support/cluster.js';
import { queueOn } from '../support/clusterQueues.js';
import { type LiveSubscription, wsSubscribe } from '../support/live.js';
import { startTestServer, type TestServer } from '../support/server.js';

const handle = useTestCluster();

/** A round-robin proxy over `ports`: each request and each WebSocket upgrade to the next one. */
async function roundRobin(ports: readonly number[]) {
  let next = 0;
  const pick = () => ports[next++ % ports.length] as number;
  const counts = new Map<number, number>();
  const count = (port: number) => counts.set(port, (counts.get(port) ?? 0) + 1);
  const server = http.createServer((request, response) => {
    const port = pick();
    count(port);
    const upstream = http.request(
      {
        host: '127.0.0.1',
        port,
        path: request.url,
        method: request.method,
        headers: request.headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  server.on('upgrade', (request, socket, head) => {
    const port = pick();
    count(port);
    const upstream = net.connect(port, '127.0.0.1', () => {
      const lines = [`${request.method} ${request.url} HTTP/1.1`];
      for (let i = 0; i < request.rawHeaders.length; i += 2) {
        lines.push(`${request.rawHeaders[i]}: ${request.rawHeaders[i + 1]}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    const close = () => {
      upstream.destroy();
      socket.destroy();
    };
    upstream.on('error', close);
    socket.on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}/graphql`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('two API servers behind a round-robin proxy', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('answer every mutation and keep every subscriber on both live through a failover', async () => {
    const { cluster } = handle;
    for (let i = 0; i < 2; i++) servers.push(await startTestServer(cluster.url));
    const proxy = await roundRobin(servers.map((s) => Number(new URL(s.endpoint).port)));
    const post = async (document: DocumentNode, variables: object) => {
      const response = await fetch(proxy.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
        },
        body: JSON.stringify({ query: print(document), variables }),
      });
      return (await response.json()) as { errors?: { message: string }[] };
    };

    const masters = (await cluster.topology())
      .filter((n) => n.role === 'master' && n.slots.length > 0)
      .map((n) => n.port);
    const master = masters[0] as number;
    const queue = await queueOn(cluster, master, 'proxied');

    // Four sockets through the proxy: two land on each server.
    const subscriptions: LiveSubscription<RingChangedSubscription>[] = [];
    const clients = Array.from({ length: 4 }, () =>
      createClient({ url: proxy.endpoint.replace(/^http/, 'ws'), webSocketImpl: WebSocket }),
    );
    for (const client of clients) {
      subscriptions.push(wsSubscribe(client, RingChangedDocument, { queue }));
    }
    for (const s of subscriptions) await s.events.next(10_000); // the initial state
    expect([...proxy.counts.values()].every((n) => n >= 2)).toBe(true);

    const errors: string[] = [];
    const send = async (document: DocumentNode, variables: object) => {
      const body = await post(document, variables);
      if (body.errors) errors.push(...body.errors.map((e) => e.message));
    };
    for (const group of ['a', 'b', 'c']) await send(EnqueueDocument, { queue, group });
    await send(SetLimitDocument, { queue, group: 'a', limit: 1 });

    // Steer without pause while the master is killed and its replica elected.
    let stop = false;
    let sent = 0;
    const steering = (async () => {
      while (!stop) {
        await send(PauseGroupDocument, { queue, group: 'c' });
        await send(ResumeGroupDocument, { queue, group: 'c' });
        sent += 2;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const resyncsBefore = subscriptions.map(
      (s) => s.events.items.filter((e) => e.data?.ringChanged.reason === 'RESYNC').length,
    );
    await cluster.kill(master);
    await cluster.awaitPromotion(master);
    await Promise.all(
      subscriptions.map((s, i) =>
        s.events.until(
          `a RESYNC on subscriber ${i}`,
          () =>
            s.events.items.filter((e) => e.data?.ringChanged.reason === 'RESYNC').length >
            (resyncsBefore[i] as number),
          30_000,
        ),
      ),
    );
    const sentAtPromotion = sent;
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop = true;
    await steering;
    expect(sent, 'mutations answered after the promotion').toBeGreaterThan(sentAtPromotion);
    expect(errors, 'mutations through the proxy that failed').toEqual([]);

    // A change made now reaches every subscriber, on both servers, by the promoted replica.
    await send(PauseGroupDocument, { queue, group: 'b' });
    await Promise.all(
      subscriptions.map((s, i) =>
        s.events.until(
          `b off the ring on subscriber ${i}`,
          () => s.events.items.at(-1)?.data?.ringChanged.ring.includes('b') === false,
          10_000,
        ),
      ),
    );
    for (const s of subscriptions) expect(s.events.error).toBeUndefined();
    for (const client of clients) await client.dispose();
    await proxy.close();

    const rm = new Ringmaster(handle.client(clusterOptions(cluster.nodeTimeoutMs)));
    const audit = await rm.queue(queue).audit();
    expect(audit.findings).toEqual([]);
    await cluster.restart(master);
  }, 120_000);
});
