/**
 * The console's two ways to the server: `request` (fetch, POST /graphql) for reads and
 * commands, and one graphql-ws client for live state. Both carry the token, when there is one:
 * `Authorization: Bearer` on HTTP, `connectionParams.authorization` on the socket.
 */
import { type Client, createClient } from 'graphql-ws/client';
import type { TypedDocumentString } from './gql/graphql';

const TOKEN_KEY = 'ringmaster.token';

/** True when the server said (in index.html) that it needs a token. */
export const authRequired =
  document.querySelector<HTMLMetaElement>('meta[name="ringmaster-auth"]')?.content === 'on';

let token: string | null = sessionStorage.getItem(TOKEN_KEY);

export const getToken = (): string | null => token;

/** Remember `value` for this tab (sessionStorage), or forget it (null). */
export function setToken(value: string | null): void {
  token = value;
  if (value === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, value);
}

/** A failed request, with the server's code (or NETWORK / HTTP) and a sentence for people. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
  ) {
    super(message);
  }

  /** What to show an operator. */
  get words(): string {
    switch (this.code) {
      case 'UNAUTHENTICATED':
        return 'Your token was not accepted: enter a valid one.';
      case 'FORBIDDEN':
        return "Your token's role may not do this: it needs an admin token.";
      case 'BAD_USER_INPUT':
        return `Not accepted: ${this.message}.`;
      case 'NETWORK':
        return 'The server cannot be reached: is it running?';
      case 'INTERNAL_SERVER_ERROR':
        return 'The server failed unexpectedly; its log says why.';
      default:
        return this.message;
    }
  }
}

interface WireError {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string; queue?: string };
}

/** Listeners told when the server refuses the token (HTTP 401, socket closed with 4403). */
const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}
const unauthorized = (): void => {
  for (const listener of unauthorizedListeners) listener();
};

/**
 * Run a query or mutation over HTTP.
 * @throws ApiError with the first GraphQL error's code, or NETWORK / HTTP
 */
export async function request<R, V>(
  document: TypedDocumentString<R, V>,
  variables: V,
  options: { token?: string | null } = {},
): Promise<R> {
  const { data, errors } = await send(document, variables, options);
  const first = errors[0];
  if (first) throw first;
  return data;
}

/**
 * Run a query whose answer may be partial (`Query.queues`: a queue that cannot be read is null
 * in the list, with its error): the data with the errors that came with it.
 * @throws ApiError when there is no data at all (the first error's code), or NETWORK / HTTP
 */
export async function requestPartial<R, V>(
  document: TypedDocumentString<R, V>,
  variables: V,
): Promise<{ data: R; errors: { error: ApiError; queue: string | null }[] }> {
  const { data, errors, wire } = await send(document, variables, {}, true);
  return {
    data,
    errors: errors.map((error, i) => ({ error, queue: wire[i]?.extensions?.queue ?? null })),
  };
}

async function send<R, V>(
  document: TypedDocumentString<R, V>,
  variables: V,
  options: { token?: string | null },
  partial = false,
): Promise<{ data: R; errors: ApiError[]; wire: WireError[] }> {
  const bearer = options.token === undefined ? token : options.token;
  let response: Response;
  try {
    response = await fetch('/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      },
      body: JSON.stringify({ query: document.toString(), variables }),
    });
  } catch {
    throw new ApiError('the server cannot be reached', 'NETWORK', 0);
  }
  let body: { data?: R | null; errors?: WireError[] };
  try {
    body = await response.json();
  } catch {
    throw new ApiError(`the server answered HTTP ${response.status}`, 'HTTP', response.status);
  }
  const wire = body.errors ?? [];
  const errors = wire.map(
    (e) => new ApiError(e.message, e.extensions?.code ?? 'ERROR', response.status),
  );
  const first = errors[0];
  if (first?.code === 'UNAUTHENTICATED' && options.token === undefined) unauthorized();
  if (first && (!partial || !body.data)) throw first;
  if (!body.data) throw new ApiError('the server answered no data', 'HTTP', response.status);
  return { data: body.data, errors, wire };
}

/**
 * A mutation's result field: mutation fields are nullable (a reply shows what ran even when a
 * later field fails), and `request` throws on any error, so null here means a broken answer.
 * @throws ApiError when the field is null
 */
export function answered<T>(value: T | null | undefined, field: string): T {
  if (value == null) throw new ApiError(`the server answered no ${field}`, 'HTTP', 200);
  return value;
}

/** The live connection's state, for the header. */
export type LinkState = 'connecting' | 'live' | 'reconnecting';

const linkListeners = new Set<(state: LinkState, resumed: boolean) => void>();

/** Be told when the socket connects (`resumed` after a drop) and when it drops. */
export function onLink(listener: (state: LinkState, resumed: boolean) => void): () => void {
  linkListeners.add(listener);
  return () => linkListeners.delete(listener);
}

const setLink = (state: LinkState, resumed = false): void => {
  for (const listener of linkListeners) listener(state, resumed);
};

/** Close code the server uses for a socket without a valid token (DESIGN.md §6). */
const FORBIDDEN_CLOSE = 4403;

let client: Client | null = null;

/**
 * The one graphql-ws client. It connects at once, not on the first subscription (`lazy:
 * false`): the header's "live" says the server is there even when no queue exists yet to
 * subscribe to. It retries for ever with backoff (capped at 5 s); graphql-ws then subscribes
 * again every active subscription, whose first event is a SNAPSHOT, so the console reads again
 * without help. A refused token is not retried.
 */
export function live(): Client {
  if (client) return client;
  let everConnected = false;
  let dropped = false;
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  client = createClient({
    url,
    lazy: false,
    // It gives up only on a refused token, which `closed` below reports; no console noise.
    onNonLazyError: () => {},
    keepAlive: 10_000,
    retryAttempts: Number.POSITIVE_INFINITY,
    retryWait: (retries) =>
      new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 250 * 2 ** retries))),
    shouldRetry: (event) =>
      !(
        typeof event === 'object' &&
        event !== null &&
        'code' in event &&
        event.code === FORBIDDEN_CLOSE
      ),
    connectionParams: () => (token ? { authorization: token } : {}),
    on: {
      connecting: () => setLink(everConnected ? 'reconnecting' : 'connecting'),
      connected: () => {
        setLink('live', dropped);
        everConnected = true;
        dropped = false;
      },
      closed: (event) => {
        if (
          typeof event === 'object' &&
          event !== null &&
          'code' in event &&
          event.code === FORBIDDEN_CLOSE
        ) {
          unauthorized();
        }
        if (everConnected) {
          dropped = true;
          setLink('reconnecting');
        }
      },
    },
  });
  return client;
}

/** Drop the client (a new token): the next `live()` connects afresh. */
export function resetLive(): void {
  void client?.dispose();
  client = null;
}

/**
 * Subscribe over the socket; `next` gets each event's data, `fail` an error that ends it, `done`
 * the server's end of the stream (a job's feed ends at a final state). Returns the unsubscribe
 * function.
 */
export function subscribe<R, V>(
  document: TypedDocumentString<R, V>,
  variables: V,
  next: (data: R) => void,
  fail: (error: ApiError) => void,
  done: () => void = () => {},
): () => void {
  return live().subscribe<R>(
    { query: document.toString(), variables: variables as Record<string, unknown> },
    {
      next: (result) => {
        const first = (result.errors as WireError[] | undefined)?.[0];
        if (first) fail(new ApiError(first.message, first.extensions?.code ?? 'ERROR', 200));
        else if (result.data) next(result.data as R);
      },
      error: (error) => {
        const list = Array.isArray(error) ? (error as WireError[]) : [];
        const first = list[0];
        fail(
          first
            ? new ApiError(first.message, first.extensions?.code ?? 'ERROR', 200)
            : new ApiError('the live connection was refused', 'NETWORK', 0),
        );
      },
      complete: done,
    },
  );
}
