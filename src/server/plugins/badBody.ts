/**
 * A POST body that is not JSON is answered 400 whatever the client accepts.
 *
 * Yoga marks its "POST body sent invalid JSON." as a spec error, and answers spec errors 200
 * under `accept: application/json`. The GraphQL-over-HTTP spec's 200 there is for a
 * *well-formed* request with a GraphQL error; a body that does not parse is not one, and for it
 * the spec says SHOULD 400 (graphql-http audit BCF8). The request parsers are the only source
 * of spec errors thrown before parameters exist, so a spec error out of a parser loses its
 * spec mark and keeps its 400; the message and `BAD_REQUEST` code are Yoga's.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export function useBadBodyStatus(): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) return;
      setRequestParser(async (request) => {
        try {
          return await requestParser(request);
        } catch (error) {
          throw withoutSpecMark(error);
        }
      });
    },
  };
}

function withoutSpecMark(error: unknown): unknown {
  if (!(error instanceof GraphQLError)) return error;
  const http = error.extensions?.http as { spec?: boolean; status?: number } | undefined;
  if (!http?.spec) return error;
  const { spec: _spec, ...rest } = http;
  return new GraphQLError(error.message, {
    originalError: error.originalError ?? null,
    extensions: { ...error.extensions, http: rest },
  });
}
