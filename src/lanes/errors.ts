/**
 * Typed errors carrying the DESIGN.md §5 codes, so every entry point (engine, GraphQL, worker)
 * reports the same thing. Scripts answer with small status codes ({@link ScriptStatus}); the
 * engine turns them into these errors in one place.
 */

/** DESIGN.md §5 error codes raised by the engine. */
export const ErrorCode = {
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  JOB_NOT_FOUND: 'JOB_NOT_FOUND',
  LEASE_LOST: 'LEASE_LOST',
  /**
   * A server-wide or per-socket bound was reached (distinct watches, operations on a socket):
   * nothing was started; close something or retry later (issue 12, "Unbounded watches").
   */
  LIMIT_EXCEEDED: 'LIMIT_EXCEEDED',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Status codes returned by scripts (see `src/lua/includes/checkLease.lua`). */
export const ScriptStatus = {
  JOB_NOT_FOUND: -1,
  LEASE_LOST: -2,
} as const;

/** An error the caller caused or must handle; `code` is the DESIGN.md §5 code. */
export class RingmasterError extends Error {
  override readonly name = 'RingmasterError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The argument at fault, for BAD_USER_INPUT. */
    readonly argument?: string,
  ) {
    super(message);
  }

  /**
   * `{ code, argument? }`: graphql-js copies an original error's `extensions` onto the
   * GraphQLError it wraps it in, so the API reports the code without re-wrapping.
   */
  get extensions(): { code: ErrorCode; argument?: string } {
    return this.argument ? { code: this.code, argument: this.argument } : { code: this.code };
  }
}

/** BAD_USER_INPUT for argument `argument`. */
export function badInput(argument: string, message: string): RingmasterError {
  return new RingmasterError(ErrorCode.BAD_USER_INPUT, `${argument}: ${message}`, argument);
}

/** JOB_NOT_FOUND for job `id` of queue `queue`. */
export function jobNotFound(queue: string, id: string): RingmasterError {
  return new RingmasterError(ErrorCode.JOB_NOT_FOUND, `job ${id} not found in queue ${queue}`);
}

/** LEASE_LOST: job `id` exists but is not active, or the token does not match. */
export function leaseLost(queue: string, id: string): RingmasterError {
  return new RingmasterError(
    ErrorCode.LEASE_LOST,
    `job ${id} of queue ${queue} is not active under this token (not claimed, already settled, or its lease was lost)`,
  );
}

/** Turn a script's status code into its error; returns undefined for a non-status reply. */
export function errorFromStatus(
  status: unknown,
  queue: string,
  id: string,
): RingmasterError | undefined {
  if (status === ScriptStatus.JOB_NOT_FOUND) return jobNotFound(queue, id);
  if (status === ScriptStatus.LEASE_LOST) return leaseLost(queue, id);
  return undefined;
}
