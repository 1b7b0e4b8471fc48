/**
 * SSE streams count against MAX_CONNECTIONS_PER_CLIENT with the client's WebSockets (one bound
 * over every transport, `connectionLimits.ts`; DESIGN.md §4.4 "Bounds"). A subscription over
 * HTTP is one connection from its subscribe until its response closes (the client went, or the
 * stream ended); one past the bound is answered LIMIT_EXCEEDED before it subscribes, so it holds
 * no watch. Over graphql-ws the socket is what counts (`ws.ts`), not each operation on it.
 */
import type { ServerResponse } from 'node:http';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Authenticator } from '../auth.js';
import { type ConnectionLimiter, clientKey } from '../connectionLimits.js';

/** What of Yoga's context an HTTP subscription has: its Fetch request and Node's req/res. */
interface HttpContext {
  readonly request?: Request;
  readonly req?: { readonly socket?: { readonly remoteAddress?: string } };
  readonly res?: ServerResponse;
}

/** The envelop plugin; put it after the role check, so a refused operation is not counted. */
export function useStreamLimit(connections: ConnectionLimiter, auth: Authenticator): Plugin {
  return {
    onSubscribe({ args, setResultAndStopExecution }) {
      const { request, req, res } = (args.contextValue ?? {}) as HttpContext;
      // graphql-ws' operations (no response of their own) and a client already gone.
      if (res === undefined || request === undefined || res.closed) return;
      const key = clientKey(
        auth.tokenKey(request.headers.get('authorization')),
        req?.socket?.remoteAddress,
      );
      if (connections.admit(key, res)) return;
      setResultAndStopExecution({
        errors: [new GraphQLError(connections.reason, { extensions: { code: 'LIMIT_EXCEEDED' } })],
      });
    },
  };
}
