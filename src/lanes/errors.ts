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
   * A number stored in Redis that a script cannot hold exactly (Lua numbers are doubles: an
   * integer past ±(2^53−1), or not an integer at all, where one is counted): the call was
   * refused before it wrote anything. The message names the key, the field and the value, and
   * what to do (issue 12 item 7; see `src/lua/includes/safeInteger.lua`).
   */
  DATA_OUT_OF_RANGE: 'DATA_OUT_OF_RANGE',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Status codes returned by scripts (see `src/lua/includes/checkLease.lua`). */
export const ScriptStatus = {
  JOB_NOT_FOUND: -1,
  LEASE_LOST: -2,
  /** A completion of `completeAndClaim-8.lua` whose group's active count is not exact. */
  DATA_OUT_OF_RANGE: -3,
} as const;

/** How a script's error reply starts when it refused a stored number (`refuse` in safeInteger.lua). */
const DATA_OUT_OF_RANGE_REPLY = 'DATA_OUT_OF_RANGE ';
/** What Redis 7 appends to an error a script raises: where in which script. */
const SCRIPT_SUFFIX = / script: [0-9a-f]{40}, on @user_script:\d+\.$/;

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

/**
 * DATA_OUT_OF_RANGE for a script's error reply `DATA_OUT_OF_RANGE <message>`; undefined for
 * any other error (passed through unchanged).
 */
export function dataOutOfRange(error: unknown): RingmasterError | undefined {
  if (!(error instanceof Error) || !error.message.startsWith(DATA_OUT_OF_RANGE_REPLY)) {
    return undefined;
  }
  const message = error.message.slice(DATA_OUT_OF_RANGE_REPLY.length).replace(SCRIPT_SUFFIX, '');
  return new RingmasterError(ErrorCode.DATA_OUT_OF_RANGE, message);
}

/** Turn a script's status code into its error; returns undefined for a non-status reply. */
export function errorFromStatus(
  status: unknown,
  queue: string,
  id: string,
): RingmasterError | undefined {
  if (status === ScriptStatus.JOB_NOT_FOUND) return jobNotFound(queue, id);
  if (status === ScriptStatus.LEASE_LOST) return leaseLost(queue, id);
  if (status === ScriptStatus.DATA_OUT_OF_RANGE) {
    return new RingmasterError(
      ErrorCode.DATA_OUT_OF_RANGE,
      `job ${id} of queue ${queue} was not completed: its group's active count (gactive) is not an integer within ±(2^53−1), so it cannot be counted exactly; nothing was changed. Repair the queue (Queue.repair, or the repairQueue mutation): it rewrites active counts from the live leases.`,
    );
  }
  return undefined;
}
