/**
 * A subscription that no result processor takes — asked over HTTP with an `Accept` that names
 * no event stream (`application/json`, say) — is answered 406 by Yoga after it has subscribed,
 * with an empty body, and nothing would ever end its stream: its live-feed watch (one of
 * MAX_WATCHES, DESIGN.md §4) and its listener would stay for the server's life, and a read
 * token could use up the watches with a few requests. This hook ends such a stream at once
 * (`return()` reaches the live feed, which releases the watch) and answers 406 with a GraphQL
 * error (`BAD_REQUEST`) saying which transports carry subscriptions. Yoga runs its own result
 * processors before any plugin given in `plugins`, so `resultProcessor` is already chosen when
 * this hook sees it.
 */
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

/** The message of the 406: what to send instead. */
export const SUBSCRIPTION_NEEDS_STREAM =
  'A subscription needs a stream: send it with `accept: text/event-stream` (SSE) or over graphql-ws (a WebSocket to /graphql), not as a plain HTTP request for JSON.';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** The Yoga plugin; any place in Ringmaster's `plugins` (none of them sets a result processor). */
export function useEndUnprocessedStreams(): Plugin {
  return {
    onResultProcess({ request, result, resultProcessor, setResultProcessor }) {
      if (resultProcessor !== undefined || !isAsyncIterable(result)) return;
      void result[Symbol.asyncIterator]().return?.();
      // The media type the client named, of GraphQL-over-HTTP's two; JSON otherwise.
      const type = request.headers.get('accept')?.includes(GRAPHQL_RESPONSE)
        ? GRAPHQL_RESPONSE
        : 'application/json';
      setResultProcessor(
        (_result, fetchAPI) =>
          new fetchAPI.Response(
            JSON.stringify({
              errors: [{ message: SUBSCRIPTION_NEEDS_STREAM, extensions: { code: 'BAD_REQUEST' } }],
            }),
            {
              status: 406,
              statusText: 'Not Acceptable',
              headers: {
                'content-type': `${type}; charset=utf-8`,
                accept: 'text/event-stream, multipart/mixed',
              },
            },
          ),
        type,
      );
    },
  };
}
