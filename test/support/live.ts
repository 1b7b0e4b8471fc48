/**
 * Clients for subscription tests through the real server: each subscription records what the
 * server sends (results, the error, the completion) as it arrives, so a test can take events in
 * order with a timeout, count them, and close the subscription at any moment — a WebSocket
 * subscription by `complete` (or its whole socket), an SSE one by aborting its HTTP request.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { EventSourceMessage } from 'eventsource-parser';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { type ExecutionResult, print } from 'graphql';
import type { Client } from 'graphql-ws';

/** A result as it arrives on the wire: data, or errors with their codes. */
export type WireResult<T> = ExecutionResult<T> & {
  errors?: { message: string; extensions?: { code?: string } }[];
};

/** What one subscription has received so far, taken in order by `next()`. */
export class Recorder<T> {
  readonly items: T[] = [];
  /** What the transport reported as the subscription's error (graphql-ws `error`, a fetch error). */
  error: unknown;
  completed = false;
  #taken = 0;
  readonly #waiters = new Set<() => void>();

  push(item: T): void {
    this.items.push(item);
    this.#wake();
  }

  fail(error: unknown): void {
    this.error = error;
    this.completed = true;
    this.#wake();
  }

  complete(): void {
    this.completed = true;
    this.#wake();
  }

  /** Items received but not yet taken by `next()`. */
  get untaken(): number {
    return this.items.length - this.#taken;
  }

  /** The next item not yet taken; throws after `timeoutMs`, or if the stream ended first. */
  async next(timeoutMs = 5_000): Promise<T> {
    await this.until('the next event', () => this.untaken > 0 || this.completed, timeoutMs);
    if (this.untaken === 0) {
      throw new Error(`the subscription ended (error: ${JSON.stringify(this.error)})`);
    }
    return this.items[this.#taken++] as T;
  }

  /** Resolve once `check()` holds, re-checked on every arrival; throws after `timeoutMs`. */
  until(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = () => {
        if (!check()) return;
        clearTimeout(timer);
        this.#waiters.delete(waiter);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${what} (${this.items.length} received)`,
          ),
        );
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

/** One live subscription: its recorder and how to end it from the client side. */
export interface LiveSubscription<T> {
  readonly events: Recorder<WireResult<T>>;
  /** End it: `complete` on graphql-ws, abort the request on SSE. */
  close(): void;
}

/** Subscribe on a graphql-ws client (one operation id on the client's socket). */
export function wsSubscribe<T, V>(
  client: Client,
  document: TypedDocumentNode<T, V>,
  variables: V,
): LiveSubscription<T> {
  const events = new Recorder<WireResult<T>>();
  const close = client.subscribe<T>(
    { query: print(document), variables: variables as Record<string, unknown> },
    {
      next: (result) => events.push(result as WireResult<T>),
      error: (error) => events.fail(error),
      complete: () => events.complete(),
    },
  );
  return { events, close };
}

/** Subscribe over SSE (Yoga's transport, `accept: text/event-stream`) with an abortable request. */
export function sseSubscribe<T, V>(
  endpoint: string,
  document: TypedDocumentNode<T, V>,
  variables: V,
  options: { token?: string } = {},
): LiveSubscription<T> {
  const events = new Recorder<WireResult<T>>();
  const abort = new AbortController();
  void (async () => {
    try {
      const response = await fetch(endpoint, {
        method: 'POST',
        signal: abort.signal,
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        },
        body: JSON.stringify({ query: print(document), variables }),
      });
      if (!response.ok || !response.body) throw new Error(`SSE: HTTP ${response.status}`);
      const stream = response.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream()) as unknown as AsyncIterable<EventSourceMessage>;
      for await (const event of stream) {
        if (event.event === 'complete') break;
        if (event.data) events.push(JSON.parse(event.data) as WireResult<T>);
      }
      events.complete();
    } catch (error) {
      if (abort.signal.aborted) events.complete();
      else events.fail(error);
    }
  })();
  return { events, close: () => abort.abort() };
}

/** The data of a result that must have no errors. */
export function dataOf<T>(result: WireResult<T>): T {
  if (result.errors !== undefined || result.data == null) {
    throw new Error(`expected data, got ${JSON.stringify(result)}`);
  }
  return result.data;
}
