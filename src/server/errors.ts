/**
 * Error masking (DESIGN.md §5): the engine's typed errors keep their message and code; every
 * other error becomes INTERNAL_SERVER_ERROR with no stack, path or Redis text, whatever
 * NODE_ENV says.
 */
import { GraphQLError } from 'graphql';
import { RingmasterError } from '../lanes/index.js';

/** Yoga's `maskedErrors.maskError`: expose known errors, mask the rest. */
export function maskError() {
  return (error: unknown, message: string): Error => {
    if (error instanceof GraphQLError) {
      // A variable value that does not fit its type (null for a non-null variable, a value the
      // scalar refuses): graphql-js raises it before anything runs, so it has no path, and
      // names the variable first. The caller's mistake: BAD_USER_INPUT, and HTTP 400 under
      // application/graphql-response+json (the response has no data).
      if (
        error.path === undefined &&
        !error.extensions?.code &&
        error.message.startsWith('Variable "$')
      ) {
        Object.assign(error.extensions, {
          code: 'BAD_USER_INPUT',
          http: { spec: true, status: 400 },
        });
        return error;
      }
      const original = error.originalError;
      // Parse and validation errors, and errors that carry a code (the engine's typed errors
      // copy theirs; auth errors set one): safe to show as they are. Returning the same object
      // also keeps Yoga from logging a caller's mistake as a server error.
      if (!original || original instanceof RingmasterError || error.extensions?.code) {
        // Yoga puts the JSON parser's own error (name, message) in a bad body's extensions.
        delete (error.extensions as Record<string, unknown>).originalError;
        return error;
      }
    }
    // Anything else is unexpected: Yoga logs it in full; the caller learns nothing of it.
    return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
  };
}
