/**
 * Error masking (DESIGN.md §5): the engine's typed errors keep their message and code; every
 * other error becomes INTERNAL_SERVER_ERROR with no stack, path or Redis text, whatever
 * NODE_ENV says.
 */
import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { RingmasterError } from '../lanes/index.js';

/** Yoga's `maskedErrors.maskError`: expose known errors, mask and log the rest. */
export function maskError(logger: Logger) {
  return (error: unknown, message: string): Error => {
    const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
    if (original instanceof RingmasterError) {
      return new GraphQLError(original.message, {
        nodes: error instanceof GraphQLError ? (error.nodes ?? null) : null,
        path: error instanceof GraphQLError ? (error.path ?? null) : null,
        extensions: {
          code: original.code,
          ...(original.argument ? { argument: original.argument } : {}),
        },
      });
    }
    if (original instanceof GraphQLError && original.extensions?.code) {
      return original;
    }
    logger.error({ err: original }, 'unexpected error');
    return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
  };
}
