/**
 * graphql-ws on the same path as HTTP (`/graphql`), every operation run through Yoga's own
 * pipeline (`getEnveloped`), so auth, limits and error masking match HTTP and SSE
 * (STYLE.md 10). A socket whose `connection_init` carries no valid token is closed with 4403.
 */
import type { Server } from 'node:http';
import type { ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { Authenticator } from './auth.js';
import type { RingmasterYoga } from './yoga.js';

type Envelope = ReturnType<RingmasterYoga['getEnveloped']>;
interface RootValue {
  execute: Envelope['execute'];
  subscribe: Envelope['subscribe'];
}

/** Attach graphql-ws to `server`; returns the WebSocket server (its `clients` are live sockets). */
export function attachWebSocket(
  server: Server,
  yoga: RingmasterYoga,
  auth: Authenticator,
): { wss: WebSocketServer; close: () => Promise<void> } {
  // maxPayload: the same 1 MiB bound as an HTTP body (DESIGN.md §5), not ws' default 100 MiB.
  const wss = new WebSocketServer({ server, path: yoga.graphqlEndpoint, maxPayload: 1_048_576 });
  const disposable = useServer(
    {
      execute: (args) => (args.rootValue as RootValue).execute(args),
      subscribe: (args) => (args.rootValue as RootValue).subscribe(args),
      onConnect: (ctx) => auth.roleOf(ctx.connectionParams?.authorization) !== null,
      onSubscribe: async (ctx, _id, params) => {
        const enveloped = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
          // The context factory reads the token from here on WebSocket, per operation, so a
          // role is checked again on every subscribe, not only at connect.
          connectionParams: ctx.connectionParams ?? {},
        });
        try {
          const document = enveloped.parse(params.query);
          const errors = enveloped.validate(enveloped.schema, document);
          if (errors.length > 0) return errors;
          const args: ExecutionArgs = {
            schema: enveloped.schema,
            document,
            operationName: params.operationName ?? null,
            variableValues: params.variables ?? null,
            contextValue: await enveloped.contextFactory(),
            rootValue: { execute: enveloped.execute, subscribe: enveloped.subscribe },
          };
          return args;
        } catch (error) {
          if (error && typeof error === 'object' && 'extensions' in error) {
            return [error as import('graphql').GraphQLError];
          }
          throw error;
        }
      },
    },
    wss,
  );
  return {
    wss,
    close: async () => {
      for (const socket of wss.clients) socket.terminate();
      await disposable.dispose();
    },
  };
}
