/**
 * Typed errors carrying the DESIGN.md §5 codes, so every entry point (engine, GraphQL, worker)
 * reports the same thing. Scripts answer with small status codes ({@link ScriptStatus}); the
 * engine turns them into these errors in one place.
 */
import { types } from 'node:util';
import { Defaults } from './defaults.js';
import { MISSING_DATABASE, socketCause } from './redis/unavailable.js';

/** DESIGN.md §5 error codes raised by the engine. */
export const ErrorCode = {
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  JOB_NOT_FOUND: 'JOB_NOT_FOUND',
  LEASE_LOST: 'LEASE_LOST',
  // Redis failures (out of memory, unavailable), from fromRedisError: not the caller's mistake.
  /** Redis is at maxmemory (noeviction) and refused a call that may add memory; nothing changed. */
  REDIS_OUT_OF_MEMORY: 'REDIS_OUT_OF_MEMORY',
  /** Redis cannot serve now (unreachable, reconnecting, loading, failing over): retry later. */
  REDIS_UNAVAILABLE: 'REDIS_UNAVAILABLE',
  /**
   * The handle's connection has ended (ioredis status `end`: its `close()`, the client's
   * `quit()` or `disconnect()`, or a `retryStrategy` that gave up) and will not come back by
   * itself: nothing was sent. Retrying the same handle never helps; make a new one (or a new
   * client). See `redis/ended.ts`.
   */
  CONNECTION_CLOSED: 'CONNECTION_CLOSED',
  /**
   * A number stored in Redis that a script cannot hold exactly (Lua numbers are doubles: an
   * integer past ±(2^53−1), or not an integer at all, where one is counted): the call was
   * refused before it wrote anything. The message names the key, the field and the value, and
   * what to do (see `src/lua/includes/safeInteger.lua`).
   */
  DATA_OUT_OF_RANGE: 'DATA_OUT_OF_RANGE',
  /**
   * A server-wide or per-socket bound was reached (distinct watches, operations on a socket):
   * nothing was started; close something or retry later.
   */
  LIMIT_EXCEEDED: 'LIMIT_EXCEEDED',
  /**
   * The queue's jobs were written in another job layout than this engine's (DESIGN.md §2, "Job
   * layout"): enqueue and claim are refused, with nothing written, until it is drained; the
   * message says how many jobs and what to do. Reads, complete, retry, removal and the reaper
   * still work on it.
   */
  LAYOUT_MISMATCH: 'LAYOUT_MISMATCH',
  /**
   * Redis refused the connection's user a command, a key or a channel (an ACL: NOPERM), or its
   * credentials (NOAUTH, WRONGPASS): a configuration of Redis, not the caller's mistake and not
   * passing. The message names what was refused and what to grant or set, in one line.
   */
  REDIS_NOT_PERMITTED: 'REDIS_NOT_PERMITTED',
  /**
   * An enqueue (or an enqueueMany, all or nothing) would leave a group holding more pending +
   * delayed jobs than its backlog bound (its own `maxPending`, else the queue's default; DESIGN.md
   * §3, "Backlog bounds"): nothing was written. HTTP 429 through the server. Retry once the group
   * drains, or raise its bound.
   */
  GROUP_FULL: 'GROUP_FULL',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Status codes returned by scripts (see `src/lua/includes/checkLease.lua`). */
export const ScriptStatus = {
  JOB_NOT_FOUND: -1,
  LEASE_LOST: -2,
  /** A completion of `completeAndClaim-1.lua` whose group's active count is not exact. */
  DATA_OUT_OF_RANGE: -3,
} as const;

/** How a script's error reply starts when it refused a stored number (`refuse` in safeInteger.lua). */
const DATA_OUT_OF_RANGE_REPLY = 'DATA_OUT_OF_RANGE ';
/** What Redis 7 appends to an error a script or a function raises: where in which one. */
const SCRIPT_SUFFIX = / script: \S+, on @user_(?:script|function):\d+\.$/;

/** An error the caller caused or must handle; `code` is the DESIGN.md §5 code. */
export class RingmasterError extends Error {
  override readonly name = 'RingmasterError';
  /**
   * The queue a Redis failure (REDIS_UNAVAILABLE, REDIS_OUT_OF_MEMORY) of a `Queue` call was
   * about, so a reader of many queues can say which one could not be read (on a Redis Cluster,
   * the others may live on masters that answer). Set by the `call` every `Queue` method goes
   * through (queue.ts).
   */
  queue?: string;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The argument at fault, for BAD_USER_INPUT. */
    readonly argument?: string,
  ) {
    super(message);
  }

  /**
   * `{ code, argument?, queue? }`: graphql-js copies an original error's `extensions` onto the
   * GraphQLError it wraps it in, so the API reports the code without re-wrapping.
   */
  get extensions(): { code: ErrorCode; argument?: string; queue?: string } {
    return {
      code: this.code,
      ...(this.argument ? { argument: this.argument } : {}),
      ...(this.queue === undefined ? {} : { queue: this.queue }),
    };
  }
}

/** BAD_USER_INPUT for argument `argument`. */
export function badInput(argument: string, message: string): RingmasterError {
  return new RingmasterError(ErrorCode.BAD_USER_INPUT, `${argument}: ${message}`, argument);
}

/**
 * A refusal of one item of a batch, named by its place: BAD_USER_INPUT `group` of job 3 becomes
 * `jobs[3].group` (message `jobs[3].group: …`); any other error is passed on unchanged.
 */
export function inBatch(at: string, error: unknown): unknown {
  if (!(error instanceof RingmasterError) || error.code !== ErrorCode.BAD_USER_INPUT) return error;
  const argument = error.argument ?? '';
  const message = error.message.startsWith(`${argument}: `)
    ? error.message.slice(argument.length + 2)
    : error.message;
  return badInput(argument === '' ? at : `${at}.${argument}`, message);
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

// ── Redis failures ─────────────────────────────────────────────────────────────────────────

/**
 * Redis error replies meaning "not now" rather than "never": the dataset is loading, a replica
 * was written to during a failover, a cluster or its master is down, a slot is migrating (or
 * moved under a connection bound to one node: MOVED, ASK), a script is running past its time
 * limit, or Redis cannot persist. Matched at the start of the reply (Redis 7 passes a script's
 * inner error on as it is) or after `: -` (Redis 6.2 wraps it:
 * `ERR Error running script (…): @user_script:12: @user_script: 12: -READONLY …`).
 */
const UNAVAILABLE_REPLY =
  /(?:^|: -)(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY|MISCONF|MOVED|ASK)\b/;
/** Redis' maxmemory refusal, `OOM command not allowed when used memory > 'maxmemory'`, either form. */
const OOM_REPLY = /(?:^|: -)OOM\b/;
/**
 * An ACL refusal: `NOPERM this user has no permissions to run the 'evalsha' command` (or to
 * access one of the keys / channels), and inside a script (Redis 7 after `ERR `, Redis 6.2 after
 * `@user_script: N: `) `The user executing the script can't run this command or subcommand` /
 * `can't access at least one of the keys`.
 */
const NOPERM_REPLY =
  /(?:^|: -)NOPERM\b|The user executing the script can't (?:run this command|access at least one of the keys)/;
/** The credentials refused (`NOAUTH Authentication required.`, `WRONGPASS invalid username-password pair…`). */
const AUTH_REPLY = /(?:^|: -)(NOAUTH|WRONGPASS)\b/;
/**
 * What Ringmaster's Redis user needs (docs/redis.md "Running on a Redis you did not configure"), for
 * key prefix `prefix` (undefined: not known here, the default `emq` is named).
 */
function grants(prefix: string | undefined): string {
  const keys =
    prefix === undefined ? '~<KEY_PREFIX>:*, emq by default' : `~${prefix}:* for its prefix`;
  return `grant its ACL user Ringmaster's commands (+@all, or at least ${REQUIRED_COMMANDS.join(' ')}; on a Cluster ${CLUSTER_COMMANDS.join(' ')} too) and keys (${keys})`;
}

/**
 * The commands a Ringmaster user needs at least (docs/redis.md "Running on a Redis you did not
 * configure"; test/lanes/acl.test.ts runs an engine as a user with exactly these): the
 * scripts' reads and writes, TIME (every script reads Redis' clock, `includes/nowMs.lua`),
 * the Worker's blocking wake, the live feed's SUBSCRIBE, INFO (`checkServer`'s version and
 * eviction checks) and PING (`/ready`). CONFIG is optional (DESIGN.md §6).
 */
export const REQUIRED_COMMANDS = [
  '+@read',
  '+@write',
  '+@scripting',
  '+@pubsub',
  '+info',
  '+time',
  '+ping',
] as const;

/** What a user needs besides {@link REQUIRED_COMMANDS} on a Redis Cluster: the slot map. */
export const CLUSTER_COMMANDS = ['+cluster|slots', '+cluster|info', '+cluster|nodes'] as const;

/**
 * REDIS_NOT_PERMITTED in one line for `error` when Redis refused it for an ACL (NOPERM, in a
 * script too), naming what was refused and what to grant for key prefix `prefix`; undefined for
 * any other error. `cause` is the ioredis error.
 */
export function notPermitted(error: unknown, prefix?: string): RingmasterError | undefined {
  const original = error instanceof RingmasterError ? error.cause : error;
  if (!(original instanceof Error) || !NOPERM_REPLY.test(original.message)) return undefined;
  const coded = new RingmasterError(
    ErrorCode.REDIS_NOT_PERMITTED,
    notPermittedLine(original.message, prefix),
  );
  coded.cause = original;
  return coded;
}

/** REDIS_NOT_PERMITTED's one line for an ACL refusal `message` (NOPERM_REPLY). */
function notPermittedLine(message: string, prefix: string | undefined): string {
  const command = /permissions to run the '([^']+)' command/.exec(message)?.[1];
  const what = command
    ? `the ${command.toUpperCase()} command`
    : /channel/.test(message)
      ? 'a channel'
      : /keys?\b/.test(message)
        ? 'a key'
        : 'a command run by a script';
  return `Redis refused ${what} to this connection's user (NOPERM): ${grants(prefix)}`;
}

/** ioredis' own messages for a command it could not deliver or got no answer to. */
const CLIENT_UNAVAILABLE = [
  /^Connection is closed\.$/,
  /^Stream isn't writeable/,
  /^Reached the max retries per request limit/,
  /^Command timed out$/,
  /^Socket timeout/,
  /^Failed to refresh slots cache/,
  /^None of startup nodes is available/,
  // A Cluster whose redirection budget ran out (a failover longer than it), or that is closed.
  /^Too many Cluster redirections/,
  /^Cluster isn't ready/,
  /^Cluster is ended/,
];

/**
 * Classify an error from ioredis (a reply, or the client's own): REDIS_NOT_PERMITTED for an ACL
 * refusal (NOPERM, in a script too) or refused credentials (NOAUTH, WRONGPASS), its message
 * naming what was refused and what to grant; REDIS_OUT_OF_MEMORY for a
 * maxmemory refusal, REDIS_UNAVAILABLE for a connection refused, closed or given up on
 * (`maxRetriesPerRequest`, the offline queue off), a command timeout, and the replies of
 * {@link UNAVAILABLE_REPLY}. Anything else (a bug, WRONGTYPE, a script error) and errors that
 * are RingmasterErrors already: undefined, so the caller passes them on unchanged. The
 * RingmasterError's `cause` is the ioredis error, and its message does not repeat the cause's
 * (`Redis is unavailable: retry later`): what Redis or ioredis said is the cause's message, which
 * pino's `err`, Node's inspect and {@link errorLine} print after it, once.
 *
 * A REDIS_UNAVAILABLE call whose connection dropped while it was in flight may have been
 * applied; a REDIS_OUT_OF_MEMORY call changed nothing (Redis refuses a command, or a script at
 * its first write, before it changes anything).
 * @param where put after "Redis is unavailable": where the connection points and why it failed
 *   (` at host:port (connection refused)`, `unavailableWhere` of `redis/unavailable.ts`)
 */
export function fromRedisError(error: unknown, where = ''): RingmasterError | undefined {
  // Guarded (readThrown's reads): mapError may be handed any thrown value, a Proxy's too.
  if (!isError(error) || attempt(() => error instanceof RingmasterError) !== false)
    return undefined;
  const message = attempt(() => (error as Error).message);
  if (typeof message !== 'string') return undefined;
  let coded: RingmasterError | undefined;
  const auth = AUTH_REPLY.exec(message)?.[1];
  if (NOPERM_REPLY.test(message)) {
    coded = new RingmasterError(
      ErrorCode.REDIS_NOT_PERMITTED,
      notPermittedLine(message, undefined),
    );
  } else if (auth) {
    coded = new RingmasterError(
      ErrorCode.REDIS_NOT_PERMITTED,
      `Redis refused this connection's credentials (${auth}): set the user and password it is given (the server's REDIS_URL) to an enabled ACL user's`,
    );
  } else if (OOM_REPLY.test(message)) {
    coded = new RingmasterError(
      ErrorCode.REDIS_OUT_OF_MEMORY,
      "Redis is out of memory (used memory > 'maxmemory', policy noeviction) and refused the call, which changed nothing: free memory or raise maxmemory, then retry",
    );
  } else {
    const reply = UNAVAILABLE_REPLY.exec(message)?.[1];
    const code = attempt(() => (error as NodeJS.ErrnoException).code);
    const network = typeof code === 'string' && socketCause(code) !== undefined;
    if (reply || network || CLIENT_UNAVAILABLE.some((pattern) => pattern.test(message))) {
      // A database the server lacks is a configuration, not an outage: no "retry later".
      const advice = where.includes(MISSING_DATABASE)
        ? 'name a database it has in the connection (the URL path, or the db option)'
        : 'retry later';
      coded = new RingmasterError(
        ErrorCode.REDIS_UNAVAILABLE,
        // The reason is the cause's message, not repeated here: loggers and Node's inspect print
        // a cause after the message (pino: `message: cause`), and errorLine does too.
        `Redis is unavailable${where}: ${advice}`,
      );
    }
  }
  if (coded) coded.cause = error;
  return coded;
}

/**
 * What a call of the engine's public classes (`Queue`, `Ringmaster`) rejects with when it
 * failed with `error`, whichever command or script failed: the `call` each of their methods
 * goes through passes every rejection here. An ACL refusal becomes REDIS_NOT_PERMITTED with
 * the grant naming key prefix `prefix` ({@link notPermitted}), a Redis failure its code
 * ({@link fromRedisError}, REDIS_UNAVAILABLE saying what `where` answers), either with `queue`
 * set when given; anything else is `error` itself, unchanged.
 */
export function codedRedisFailure(
  error: unknown,
  prefix: string,
  queue?: string,
  where?: (error: unknown) => string,
): unknown {
  const coded = notPermitted(error, prefix) ?? fromRedisError(error, where?.(error));
  if (coded === undefined) return error;
  if (queue !== undefined) coded.queue = queue;
  return coded;
}

// ── what a thrown value says ───────────────────────────────────────────────────────────────

/** A thrown value made safe to record, send and print ({@link readThrown}). */
export interface Thrown {
  /** Its text, at most `Defaults.errorMessageLength` (1,024) characters; never throws to read. */
  readonly message: string;
  /** An Error's stack as a string, at most `Defaults.errorStackLength` (8,192); else null. */
  readonly stack: string | null;
  /**
   * The value itself when it is an Error whose `message` and `stack` read as strings (or no
   * stack); otherwise a new Error of `message`, with `stack` (or none) as its stack and the
   * value as its `cause`, so a listener reading `message` or `stack` cannot throw.
   */
  readonly error: Error;
}

/**
 * What any thrown value says, as bounded text (DESIGN.md §4.1, "Worker"): the one reading of a
 * processor's failure, of an 'error' event's value and of a log line's error. Every read that
 * runs a caller's code (a getter, `toString`, a Proxy's trap) is guarded, so this never throws:
 * - a string: itself;
 * - an Error (of any realm): its `message` if a string, else that message's text, else the
 *   Error's own text (`String(error)`); its `stack` if a string;
 * - a plain object (`{ weird: true }`, whose `String` is `[object Object]`): its JSON
 *   (`{"weird":true}`); where that throws (a cycle, a getter or `toJSON` that throws, a bigint),
 *   `[object Object]`;
 * - anything else: `String(value)` (`undefined`, `Symbol(x)`, `10` for 10n);
 * - what none of these turn into a string (`Object.create(null)`, a `toString` that throws or
 *   answers an object, a Proxy that throws on every trap): `[unprintable <type>]`, the type
 *   being the Error's constructor's name, else `typeof` (`[unprintable object]`).
 * Texts are cut as `Queue.retry` cuts them (surrogate pairs kept whole), so what is sent is
 * what is recorded.
 */
export function readThrown(value: unknown): Thrown {
  if (typeof value === 'string') {
    const message = cutText(value, Defaults.errorMessageLength);
    const wrapped = new Error(message);
    wrapped.stack = `Error: ${message}`;
    return { message, stack: null, error: wrapped };
  }
  const error = isError(value);
  const ownMessage = error ? read(() => (value as Error).message) : THREW;
  const rawStack = error ? read(() => (value as Error).stack) : undefined;
  const text =
    typeof ownMessage === 'string'
      ? ownMessage
      : ((ownMessage === THREW || ownMessage === undefined ? undefined : textOf(ownMessage)) ??
        objectText(value) ??
        `[unprintable ${error ? (constructorName(value) ?? 'Error') : typeof value}]`);
  const message = cutText(text, Defaults.errorMessageLength);
  const stack = typeof rawStack === 'string' ? cutText(rawStack, Defaults.errorStackLength) : null;
  const clean =
    error && typeof ownMessage === 'string' && (rawStack === undefined || stack !== null);
  if (clean) return { message, stack, error: value as Error };
  const wrapped = new Error(message, { cause: value });
  // The worker's own frames say nothing of where the value was thrown.
  wrapped.stack = stack ?? `Error: ${message}`;
  return { message, stack, error: wrapped };
}

/**
 * `text` cut to `max` characters; a high surrogate whose low half was cut off is dropped too
 * (it would reach Redis as U+FFFD).
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/** What {@link read} answers for a read that threw. */
const THREW: unique symbol = Symbol('threw');

/** `get()`, or {@link THREW} if it throws. */
function read<T>(get: () => T): T | typeof THREW {
  try {
    return get();
  } catch {
    return THREW;
  }
}

/** `get()`, or undefined if it throws. */
function attempt<T>(get: () => T): T | undefined {
  const value = read(get);
  return value === THREW ? undefined : value;
}

/** An Error of this realm (`instanceof`, which a Proxy's trap may refuse) or another. */
function isError(value: unknown): boolean {
  return types.isNativeError(value) || attempt(() => value instanceof Error) === true;
}

/** `String(value)`, or undefined where it throws (or a `toString` answers no primitive). */
function textOf(value: unknown): string | undefined {
  return attempt(() => String(value));
}

/**
 * `String(value)`, but a plain object's JSON in place of `[object Object]` (kept when the JSON
 * throws); undefined where `String` throws.
 */
function objectText(value: unknown): string | undefined {
  const text = textOf(value);
  if (text !== '[object Object]') return text;
  if (attempt(() => Object.getPrototypeOf(value)) !== Object.prototype) return text;
  const json = attempt(() => JSON.stringify(value));
  return typeof json === 'string' ? json : text;
}

/** The name of `value`'s constructor, when it reads as a non-empty string (cut to 100). */
function constructorName(value: unknown): string | undefined {
  const name = attempt(() => (value as { constructor?: { name?: unknown } }).constructor?.name);
  return typeof name === 'string' && name !== '' ? cutText(name, 100) : undefined;
}

/**
 * `value` as an Error, for 'error' events and logs: itself when it reads cleanly, else one
 * whose message is its text ({@link readThrown}).
 */
export function asError(value: unknown): Error {
  return readThrown(value).error;
}

/**
 * The one mapping of a failure to what a caller, an event or a log is given: the
 * {@link fromRedisError} RingmasterError (REDIS_UNAVAILABLE, REDIS_OUT_OF_MEMORY,
 * REDIS_NOT_PERMITTED, the ioredis error
 * its `cause`) where Redis failed, else `value` as it is ({@link asError} for a non-Error). Every
 * path that hands an error on without a `Queue`/`Ringmaster` method between it and ioredis (the
 * Worker's events, the Reaper's hooks, the live feed's logs) goes through it. `where`: the
 * failing connection's address and cause, as REDIS_UNAVAILABLE names them (`unavailableWhere`).
 */
export function mapError(value: unknown, where = ''): Error {
  return fromRedisError(value, where) ?? asError(value);
}

/**
 * `value` mapped ({@link mapError}) as one line for a log's `err` field: its message, then its
 * cause's message after `: ` (once), then ` [CODE]` for a RingmasterError —
 * `Redis is unavailable: retry later: Connection is closed. [REDIS_UNAVAILABLE]`.
 */
export function errorLine(value: unknown): string {
  const error = mapError(value);
  const cause = isError(error.cause) ? `: ${readThrown(error.cause).message}` : '';
  const code = error instanceof RingmasterError ? ` [${error.code}]` : '';
  return `${error.message}${cause}${code}`;
}
