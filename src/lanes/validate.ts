/**
 * Input rules of DESIGN.md §5, checked before anything reaches Redis, so a rejected call
 * changes nothing. Each function returns the value it accepted (normalised) or throws a
 * {@link RingmasterError} with code BAD_USER_INPUT (or JOB_NOT_FOUND for a malformed job id).
 */
import { createHash } from 'node:crypto';
import { Defaults, TIMER_ACTOR } from './defaults.js';
import { badInput, cutText, jobNotFound } from './errors.js';
import { isIntegerIn, Limits } from './limits.js';
import type { GroupRanking, JobState } from './types.js';

// Read here as `validate.Limits` by the engine's modules, as well as from limits.ts.
export { Limits } from './limits.js';

const QUEUE_NAME = /^[A-Za-z0-9._:-]{1,128}$/;
// No braces: a `{…}` would be taken as the Cluster hash tag of every queue's keys. A `:` is kept
// (`app:emq` names the keys an ioredis keyPrefix `app:` named: the way off it, redis/plainKeys.ts).
const KEY_PREFIX = /^[A-Za-z0-9._:-]{1,64}$/;
// C0, DEL and C1 control characters.
const CONTROL = /\p{Cc}/u;
const JOB_ID = /^[0-9]{1,20}$/;

/**
 * `value` when it is an integer from `min` to `max` (both included); else BAD_USER_INPUT
 * (`argument`): "must be an integer from min to max", after `field` when it names a field of
 * the argument.
 */
export function integerIn(
  argument: string,
  value: unknown,
  min: number,
  max: number,
  field?: string,
): number {
  if (!isIntegerIn(value, min, max)) {
    const what = field === undefined ? '' : `${field} `;
    throw badInput(argument, `${what}must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** Whether `value` is a queue name: 1–128 of `[A-Za-z0-9._:-]` (no braces: it is the hash tag). */
export function isQueueName(value: unknown): value is string {
  return typeof value === 'string' && QUEUE_NAME.test(value);
}

/** A queue name (see {@link isQueueName}); BAD_USER_INPUT otherwise. */
export function queueName(value: unknown): string {
  if (!isQueueName(value)) {
    throw badInput('queue', 'must be 1 to 128 characters of A-Z a-z 0-9 . _ : -');
  }
  return value;
}

/**
 * The rule of a key prefix `P` (DESIGN.md §2, §5), the one the engine's `prefix` option and the
 * server's `KEY_PREFIX` both state.
 */
export const KEY_PREFIX_RULE = 'must be 1 to 64 of A-Z a-z 0-9 . _ - :';

/** Whether `value` is a key prefix: 1–64 of `[A-Za-z0-9._:-]` ({@link KEY_PREFIX_RULE}). */
export function isKeyPrefix(value: unknown): value is string {
  return typeof value === 'string' && KEY_PREFIX.test(value);
}

/**
 * A key prefix `P` (see {@link isKeyPrefix}): the `prefix` option of `Queue`, `Worker` and
 * `Ringmaster`.
 * @throws RingmasterError BAD_USER_INPUT (`argument`) stating {@link KEY_PREFIX_RULE}
 */
export function keyPrefix(value: unknown, argument = 'prefix'): string {
  if (!isKeyPrefix(value)) throw badInput(argument, KEY_PREFIX_RULE);
  return value;
}

/** A group id: non-empty, at most 256 UTF-8 bytes, no control characters. */
export function groupId(value: unknown, argument = 'group'): string {
  return name(value, argument, Limits.groupIdBytes);
}

/**
 * A worker's id (DESIGN.md §4.9 "Workers"): non-empty, at most 200 UTF-8 bytes, no control
 * characters, well-formed Unicode.
 * @throws RingmasterError BAD_USER_INPUT (`argument`)
 */
export function workerId(value: unknown, argument = 'workerId'): string {
  return name(value, argument, Limits.workerIdBytes);
}

/**
 * Who a steering call is recorded as in the history (DESIGN.md §4.6, `SteeringOptions.actor`
 * and the handles' `actor` option): a group id's rules within 128 UTF-8 bytes, and not
 * `timer`, which the history keeps for the timed overrides' reverts (§4.8), so no caller can
 * be recorded as one.
 * @throws RingmasterError BAD_USER_INPUT (`argument`)
 */
export function actor(value: unknown, argument = 'actor'): string {
  const given = name(value, argument, Limits.actorBytes);
  if (given === TIMER_ACTOR) {
    throw badInput(
      argument,
      `must not be '${TIMER_ACTOR}': the history records the timed overrides' reverts by that name`,
    );
  }
  return given;
}

/** A name of the keyspace or the history: non-empty, at most `maxBytes` UTF-8 bytes, no control characters, well-formed Unicode. */
function name(value: unknown, argument: string, maxBytes: number): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw badInput(argument, 'must be a non-empty string');
  }
  if (Buffer.byteLength(value, 'utf8') > maxBytes) {
    throw badInput(argument, `must be at most ${maxBytes} UTF-8 bytes`);
  }
  if (CONTROL.test(value)) {
    throw badInput(argument, 'must not contain control characters');
  }
  if (!value.isWellFormed()) {
    throw badInput(argument, 'must be well-formed Unicode (no lone surrogates)');
  }
  return value;
}

/**
 * An enqueue's idempotency key (a retried enqueue makes no second job): the rules of a group id — non-empty, at most
 * 256 UTF-8 bytes, no control characters, well-formed Unicode (two different keys never map to
 * the same bytes) — under the argument name `key`.
 */
export function idempotencyKey(value: unknown): string {
  return groupId(value, 'key');
}

/** A debounce's fields (`options` refuses any other). */
const DEBOUNCE_FIELDS = { key: true, windowMs: true } as const;

/**
 * An enqueue's debounce (DESIGN.md §3, "Debounce"): an object `{ key, windowMs }`, both required;
 * the key by the rules of an idempotency key (argument `debounce.key`), windowMs an integer in
 * 1..2,592,000,000 ms (30 days, as a delay; argument `debounce.windowMs`).
 * @throws RingmasterError BAD_USER_INPUT
 */
export function debounce(value: unknown): { key: string; windowMs: number } {
  const given = options(
    'debounce',
    value as { key?: unknown; windowMs?: unknown } | null | undefined,
    DEBOUNCE_FIELDS,
  );
  if (value === null || value === undefined) {
    throw badInput('debounce', 'must be an object { key, windowMs }');
  }
  if (given.key === undefined) throw badInput('debounce.key', 'is required');
  if (given.windowMs === undefined) throw badInput('debounce.windowMs', 'is required');
  return {
    key: groupId(given.key, 'debounce.key'),
    windowMs: integerIn('debounce.windowMs', given.windowMs, 1, Limits.maxDelayMs),
  };
}

/** How long an idempotency key is remembered, in ms: an integer in 1..2,592,000,000 (30 days). */
export function keyTtlMs(value: unknown): number {
  return integerIn('keyTtlMs', value, 1, Limits.maxDelayMs);
}

/**
 * How long the reaper keeps an idle, unset group registered after the last call that registered
 * it (`groupGraceMs`, DESIGN.md §3 "Forgetting groups"), in ms: an integer in 0..2,592,000,000
 * (30 days); 0 forgets such a group at the next pass.
 */
export function groupGraceMs(value: unknown): number {
  return integerIn('groupGraceMs', value, 0, Limits.maxDelayMs);
}

/**
 * A delay in ms (an enqueue's or a retry's `delayMs`): an integer in 0..2,592,000,000 (30 days);
 * 0 means at once.
 */
export function delayMs(value: unknown, argument = 'delayMs'): number {
  return integerIn(argument, value, 0, Limits.maxDelayMs);
}

/**
 * An enqueue's `runAt`: ms since the epoch, an integer in 0..2^53−1. Whether it is within
 * 30 days of now is judged by the script, on the Redis clock (`enqueue-12.lua`, outcome 3).
 */
export function runAt(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw badInput('runAt', 'must be a time (ms since the epoch) within 30 days of now');
  }
  return value;
}

/** A backoff policy's fields (`options` refuses any other). */
const BACKOFF_FIELDS = { type: true, delayMs: true, maxDelayMs: true, jitter: true } as const;

/**
 * A backoff policy (DESIGN.md §3, backoff), refused as argument `backoff` (the message names
 * the field): an object `{ type: 'FIXED' | 'EXPONENTIAL', delayMs, maxDelayMs?, jitter? }` with
 * delayMs an integer in 0..2,592,000,000, maxDelayMs null/absent or an integer in
 * delayMs..2,592,000,000, jitter a number in 0..1 (default 0). Returns it with the defaults
 * filled in (maxDelayMs null, jitter 0).
 */
export function backoff(value: unknown): {
  type: 'FIXED' | 'EXPONENTIAL';
  delayMs: number;
  maxDelayMs: number | null;
  jitter: number;
} {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badInput('backoff', 'must be an object { type, delayMs, maxDelayMs?, jitter? }');
  }
  const v = options('backoff', value as Record<string, unknown>, BACKOFF_FIELDS);
  if (v.type !== 'FIXED' && v.type !== 'EXPONENTIAL') {
    throw badInput('backoff', "type must be 'FIXED' or 'EXPONENTIAL'");
  }
  const field = (name: string, x: unknown, min: number) =>
    integerIn('backoff', x, min, Limits.maxDelayMs, name);
  const delay = field('delayMs', v.delayMs, 0);
  const maxDelayMs = v.maxDelayMs == null ? null : field('maxDelayMs', v.maxDelayMs, delay);
  const jitter = v.jitter ?? 0;
  if (typeof jitter !== 'number' || !Number.isFinite(jitter) || jitter < 0 || jitter > 1) {
    throw badInput('backoff', 'jitter must be a number from 0 to 1');
  }
  return { type: v.type, delayMs: delay, maxDelayMs, jitter };
}

/**
 * A failure's text (a retry's `error` or `stack`): a string, or null/undefined for none ('').
 * Cut to `max` UTF-16 units (never inside a surrogate pair) rather than refused: a worker's
 * error is recorded whatever its size (DESIGN.md §3, errors).
 */
export function failureText(argument: string, value: unknown, max: number): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw badInput(argument, 'must be a string');
  return cutText(value, max);
}

/** A limit: an integer in 0..1,000,000 (0 parks the group). */
export function limit(value: unknown): number {
  return integerIn('limit', value, 0, Limits.maxLimit);
}

/**
 * A group's reserve: an integer in 0..Limits.maxLimit, the bound of a limit (DESIGN.md §3, "The
 * queue's cap and reserves"); 0 clears it.
 */
export function reserve(value: unknown): number {
  return integerIn('reserve', value, 0, Limits.maxLimit);
}

/**
 * A backlog bound: an integer in 0..Limits.maxPending (1,000,000,000), or null to clear it
 * (DESIGN.md §3, "Backlog bounds"); 0 refuses every enqueue of the group.
 */
export function maxPending(value: unknown): number | null {
  if (value === null) return null;
  return integerIn('maxPending', value, 0, Limits.maxPending);
}

/** A lease length in ms: an integer in 1..86,400,000. */
export function leaseMs(value: unknown): number {
  return integerIn('leaseMs', value, 1, Limits.maxLeaseMs);
}

/** maxAttempts: an integer in 1..100. */
export function maxAttempts(value: unknown): number {
  return integerIn('maxAttempts', value, 1, Limits.maxAttempts);
}

/** A job's priority (DESIGN.md §3, "Priorities"): an integer in 1..9, 1 runs first. */
export function priority(value: unknown, argument = 'priority'): number {
  return integerIn(argument, value, Limits.minPriority, Limits.maxPriority);
}

/** A page size: an integer in 1..500. */
export function pageSize(value: unknown): number {
  return integerIn('first', value, 1, Limits.maxPageSize);
}

/**
 * A reap batch: an integer in 1..10,000 (jobs per script call). Not a DESIGN.md §5 input, but an
 * engine one: 0 or a negative batch would make `Queue.reap` loop forever.
 */
export function reapBatch(value: unknown): number {
  return integerIn('batch', value, 1, Limits.maxReapBatch);
}

/** Job ids one step of a layout upgrade visits: an integer in 1..10,000 (an engine input). */
export function layoutBatch(value: unknown): number {
  return integerIn('batch', value, 1, Limits.maxLayoutBatch);
}

/** Steps one `Queue.upgradeLayout` call makes at most: an integer in 1..1,000,000. */
export function layoutSteps(value: unknown): number {
  return integerIn('maxSteps', value, 1, Limits.maxLayoutSteps);
}

/** A Worker's concurrency: an integer in 1..10,000 (jobs at once). An engine input, like the next. */
export function concurrency(value: unknown): number {
  return integerIn('concurrency', value, 1, Limits.maxConcurrency);
}

/**
 * A period or timeout of the Worker (`extendEveryMs`, `parkTimeoutMs`): an integer number of ms
 * in 1..86,400,000. Not a DESIGN.md §5 input but an engine one: NaN or a negative period would
 * make the lease timer fire every millisecond.
 */
export function durationMs(argument: string, value: unknown): number {
  return integerIn(argument, value, 1, Limits.maxLeaseMs);
}

/**
 * A callback given to the engine (a Worker's processor, a Reaper's or a Ringmaster's hooks): a
 * function; with `optional`, also undefined (none). Checked when it is handed over, so a
 * processor of `5` is refused at `new Worker` rather than killing every job it claims
 * ("is not a function" as each job's error, then DEAD). BAD_USER_INPUT (`argument`) otherwise.
 */
export function callback(argument: string, value: unknown, optional = false): void {
  if (typeof value === 'function' || (optional && value === undefined)) return;
  throw badInput(
    argument,
    `must be a function${optional ? ' (or left out)' : ''}, not ${kindOf(value)}`,
  );
}

/** What a value is, for a refusal's message: `a number`, `null`, `an array`, `an object`, … */
export function kindOf(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * A batch size of `completeAndClaim` (completions or claims): an integer in 0..1,000. Not a
 * DESIGN.md §5 input but an engine one: a script cannot unpack an unbounded list.
 */
export function batchSize(argument: string, value: unknown): number {
  return integerIn(argument, value, 0, Limits.maxBatch);
}

/**
 * A lease token: a non-empty string of at most 128 characters (Unicode code points, as
 * DESIGN.md §5 counts them, not UTF-16 units).
 */
export function token(value: unknown): string {
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    // Only a string over 128 UTF-16 units can be over 128 code points: count those alone.
    (value.length > Limits.tokenLength && [...value].length > Limits.tokenLength)
  ) {
    throw badInput('token', `must be 1 to ${Limits.tokenLength} characters`);
  }
  return value;
}

/** What a JSON value checked by {@link payload} is called in its refusals. */
type JsonArgument = 'payload' | 'result' | 'progress';

/**
 * A payload: a JSON value that its JSON text gives back as it was given (DESIGN.md §5,
 * "Payloads"); undefined and null mean none. Returns its JSON text, or '' for none. Refused
 * (BAD_USER_INPUT `payload`, the message naming the path, `payload.items[2].n`): what
 * `JSON.stringify` would change or drop silently — NaN and ±Infinity (stored as null; through
 * GraphQL a number past a double, `1e400`, parses as Infinity), undefined, a function or a symbol
 * in an array (null) or as a property (left out; an undefined property is accepted: it reads back
 * absent, as undefined), a symbol key, a Map, Set, WeakMap, WeakSet, RegExp, Error, Promise,
 * ArrayBuffer or typed array (`{}`, or an object for an array) — and what it cannot write: a
 * bigint, a cycle, nesting too deep for the serializer (some 4,000 levels). An object with
 * `toJSON` (a Date) is taken as what that answers, as JSON.stringify does; -0 is stored as 0.
 * Text over `maxBytes` UTF-8 bytes (a payload's 524,288) is refused.
 */
export function payload(
  value: unknown,
  argument: JsonArgument = 'payload',
  maxBytes: number = Limits.payloadBytes,
): string {
  if (value === undefined || value === null) return '';
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    // Valid JSON can still be too deep for the serializer's stack (thousands of levels).
    if (error instanceof RangeError) throw badInput(argument, 'is nested too deeply');
    // A bigint or a cycle: say where.
    throw badInput(argument, unfaithfulJson(value, true, argument) ?? 'must be a JSON value');
  }
  if (text === undefined) {
    throw badInput(argument, unfaithfulJson(value, false, argument) ?? 'must be a JSON value');
  }
  if (Buffer.byteLength(text, 'utf8') > maxBytes) {
    throw badInput(argument, `JSON text must be at most ${maxBytes} bytes`);
  }
  if (!plainlyFaithful(value)) {
    const problem = unfaithfulJson(value, false, argument);
    if (problem !== undefined) throw badInput(argument, problem);
  }
  return text;
}

/**
 * A processor's result (DESIGN.md §5, "Payloads"): by a payload's rules and bound, refused as
 * BAD_USER_INPUT `result` (`result.n is NaN, …`). Returns its JSON text, '' for none (undefined
 * or null: nothing is stored).
 */
export function result(value: unknown): string {
  return payload(value, 'result');
}

const PROGRESS = 'must be a number from 0 to 100, or a JSON object';

/**
 * A job's progress (DESIGN.md §3, "Progress and logs"): a number from 0 to 100, or an object by
 * a payload's rules (`progress.items[2] is NaN, …`) whose JSON text is at most
 * `Limits.progressBytes`. Returns its JSON text. BAD_USER_INPUT `progress` otherwise — null and
 * undefined too: progress is reported, never cleared.
 */
export function progress(value: unknown): string {
  if (typeof value === 'number') {
    if (!(value >= 0 && value <= 100)) throw badInput('progress', PROGRESS);
    return JSON.stringify(value);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badInput('progress', PROGRESS);
  }
  const text = payload(value, 'progress', Limits.progressBytes);
  // An object whose toJSON answers something else (a Date answers a string).
  if (!text.startsWith('{')) throw badInput('progress', PROGRESS);
  return text;
}

/**
 * A line of a job's log (DESIGN.md §3, "Progress and logs"): a string of at most
 * `Limits.logLineBytes` UTF-8 bytes, well-formed Unicode; BAD_USER_INPUT `line` otherwise. Refused,
 * not altered: a longer line cut would hide its end, and a lone surrogate would be kept as U+FFFD
 * while the answer said the line as given.
 */
export function logLine(value: unknown): string {
  if (typeof value !== 'string') throw badInput('line', 'must be a string');
  if (Buffer.byteLength(value, 'utf8') > Limits.logLineBytes) {
    throw badInput('line', `must be at most ${Limits.logLineBytes} UTF-8 bytes`);
  }
  if (!value.isWellFormed()) {
    throw badInput('line', 'must be well-formed Unicode (no lone surrogates)');
  }
  return value;
}

/**
 * The common case, checked fast (no allocation but each object's symbol list): `value` is made
 * only of strings, finite numbers, booleans, null, arrays and plain objects (an undefined
 * property allowed), none with `toJSON` or a symbol key. False sends it to the full walk
 * ({@link unfaithfulJson}), which also accepts a Date or a class instance and names what is
 * wrong. A stack too deep for this recursion (the serializer went deeper) is false too.
 */
function plainlyFaithful(value: unknown): boolean {
  try {
    return faithfulIn(value, true);
  } catch (error) {
    if (error instanceof RangeError) return false;
    throw error;
  }
}

function faithfulIn(value: unknown, inArray: boolean): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'undefined':
      return !inArray;
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!faithfulIn(value[i], true)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const record = value as Record<string, unknown>;
  if (typeof record.toJSON === 'function') return false;
  if (Object.getOwnPropertySymbols(record).length > 0) return false;
  for (const key of Object.keys(record)) if (!faithfulIn(record[key], false)) return false;
  return true;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Objects JSON.stringify writes as `{}` (or, for views, as an object of indices): not as given. */
const LOSSY: readonly (abstract new (...args: never[]) => object)[] = [
  Map,
  Set,
  WeakMap,
  WeakSet,
  RegExp,
  Error,
  Promise,
  ArrayBuffer,
];
const holds = (argument: JsonArgument) =>
  `a ${argument} holds strings, finite numbers, booleans, null, and arrays and plain objects of them`;

/** A value met while walking a payload: where it is (its parent and its key in it). */
interface Step {
  readonly value: unknown;
  readonly key: string | number | null;
  readonly parent: Step | null;
}

function pathOf(step: Step, root: JsonArgument): string {
  const keys: (string | number)[] = [];
  for (let s: Step | null = step; s !== null && s.key !== null; s = s.parent) keys.push(s.key);
  let path: string = root;
  for (const key of keys.reverse()) {
    if (typeof key === 'number') path += `[${key}]`;
    else if (IDENTIFIER.test(key)) path += `.${key}`;
    else path += `[${JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key)}]`;
  }
  return path;
}

/**
 * Where `value` holds something its JSON text would not give back (see {@link payload}), as
 * the refusal's message (`payload.n is NaN, which JSON stores as null: …`); undefined if
 * nowhere. Walks as JSON.stringify does (toJSON first, boxed primitives unboxed), with a stack
 * of its own rather than recursion (no depth limit of its own). `cycles`: look for a value
 * inside itself (only when the serializer refused, so a cycle is possible; a walk of a value it
 * wrote cannot loop).
 */
function unfaithfulJson(
  root: unknown,
  cycles: boolean,
  argument: JsonArgument,
): string | undefined {
  const stack: Step[] = [{ value: root, key: null, parent: null }];
  for (let step = stack.pop(); step !== undefined; step = stack.pop()) {
    let value = step.value;
    const inArray = step.parent === null || typeof step.key === 'number';
    if ((typeof value === 'object' && value !== null) || typeof value === 'bigint') {
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') value = toJSON.call(value, String(step.key ?? ''));
    }
    if (value instanceof Number || value instanceof String || value instanceof Boolean) {
      value = value.valueOf();
    }
    switch (typeof value) {
      case 'string':
      case 'boolean':
        continue;
      case 'number':
        if (Number.isFinite(value)) continue;
        return `${pathOf(step, argument)} is ${value}, which JSON stores as null: ${holds(argument)}`;
      case 'bigint':
        return `${pathOf(step, argument)} is a bigint, which JSON cannot hold: send it as a string`;
      case 'undefined':
        // A property that is undefined reads back absent, which is undefined: accepted.
        if (!inArray) continue;
        return `${pathOf(step, argument)} is undefined, which JSON stores as null: ${holds(argument)}`;
      case 'function':
      case 'symbol': {
        const becomes =
          step.parent === null ? 'cannot write' : inArray ? 'stores as null' : 'leaves out';
        return `${pathOf(step, argument)} is a ${typeof value}, which JSON ${becomes}: ${holds(argument)}`;
      }
    }
    if (value === null) continue;
    const object = value as object;
    const lossy =
      LOSSY.find((kind) => object instanceof kind)?.name ??
      (ArrayBuffer.isView(object) ? object.constructor.name : undefined);
    if (lossy !== undefined) {
      return `${pathOf(step, argument)} is a ${lossy}, which JSON does not keep (it writes an object of its own fields): ${holds(argument)}`;
    }
    if (cycles) {
      for (let s = step.parent; s !== null; s = s.parent) {
        if (s.value === step.value)
          return `${pathOf(step, argument)} is inside itself (a cycle), which JSON cannot hold`;
      }
    }
    if (Array.isArray(object)) {
      for (let i = object.length - 1; i >= 0; i--)
        stack.push({ value: object[i], key: i, parent: step });
      continue;
    }
    if (
      Object.getOwnPropertySymbols(object).some((key) =>
        Object.prototype.propertyIsEnumerable.call(object, key),
      )
    ) {
      return `${pathOf(step, argument)} has a symbol key, which JSON leaves out: ${holds(argument)}`;
    }
    const keys = Object.keys(object);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      stack.push({ value: (object as Record<string, unknown>)[key], key, parent: step });
    }
  }
  return undefined;
}

/**
 * The names an options object may hold, each once: `{ forMs: true, actor: true }`. Typed from
 * the options' interface, so the compiler refuses a list that misses a name or adds one.
 */
export type OptionNames<T> = { readonly [K in keyof Required<T>]: true };

/**
 * An options object of the public engine API (DESIGN.md §5, "Options objects"), checked before
 * anything is sent: undefined or null is none (`{}`); anything else must be an object (not an
 * array) whose own enumerable keys are all in `known`. A known key whose value is undefined is
 * fine (TypeScript's optional properties); the values are each method's to judge.
 * @param path the argument the refusal names: `options`, `jobs[3]`, `options.backoff`
 * @param taken names the caller took out of `value` before (`connection`): not in it, but
 *   listed and suggested as options
 * @returns `value`, or `{}` for none
 * @throws RingmasterError BAD_USER_INPUT `path` when it is not an object, `path.<key>` for a key
 *   that is not an option ("is not an option (did you mean delayMs?)" when one known name is
 *   close: the same but for case, or within a small edit distance, or one starting with it)
 */
export function options<T extends object>(
  path: string,
  value: T | null | undefined,
  known: OptionNames<T>,
  taken: readonly string[] = [],
): T {
  if (value === undefined || value === null) return {} as T;
  const names = [...taken, ...Object.keys(known)];
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw badInput(path, `must be an object { ${names.map((n) => `${n}?`).join(', ')} }`);
  }
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(known, key)) continue;
    const close = closestName(key, names);
    const shown = /^[A-Za-z_$][\w$]*$/.test(key)
      ? `.${key}`
      : `[${JSON.stringify(key.slice(0, 64))}]`;
    throw badInput(
      `${path}${shown}`,
      close === undefined
        ? `is not an option: the options are ${names.join(', ')}`
        : `is not an option (did you mean ${close}?)`,
    );
  }
  return value;
}

/**
 * The one name of `names` close to `key`, or undefined: equal but for case, else the only one
 * within an edit distance of max(2, ⌊length / 3⌋) (case ignored: `delay` → `delayMs`), else the
 * only one that starts with it or it starts with (3 characters or more: `batches` → `batch`).
 */
function closestName(key: string, names: readonly string[]): string | undefined {
  const k = key.toLowerCase();
  const only = (found: string[]) => (found.length === 1 ? found[0] : undefined);
  const sameButCase = names.filter((n) => n.toLowerCase() === k);
  if (sameButCase.length > 0) return only(sameButCase);
  const within = Math.max(2, Math.floor(k.length / 3));
  const near = names.filter((n) => editDistance(n.toLowerCase(), k) <= within);
  if (near.length > 0) return only(near);
  const prefixed = (a: string, b: string) => b.length >= 3 && a.startsWith(b);
  return only(names.filter((n) => prefixed(n.toLowerCase(), k) || prefixed(k, n.toLowerCase())));
}

/** Levenshtein distance of two short strings (option names; O(a·b)). */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      next.push(Math.min(substitute, (row[j] as number) + 1, (next[j - 1] as number) + 1));
    }
    row = next;
  }
  return row[b.length] as number;
}

/** A job id: a decimal string. Anything else cannot name a job, so it is JOB_NOT_FOUND. */
export function jobId(queue: string, value: unknown): string {
  if (typeof value !== 'string' || !JOB_ID.test(value)) {
    throw jobNotFound(queue, String(value).slice(0, 64));
  }
  return value;
}

/**
 * What a page cursor pages: its kind, the queue, and the parameters that choose the listing —
 * `['groups', queue, prefix | null]` (`Queue.groups`, `groupsWithPrefix`, `snapshot`'s page: the
 * same listing for the same prefix), `['jobs', queue, state, group | null]` (`Queue.jobs`,
 * `Group.jobs`), `['history', queue, group | null]` (`Queue.history`), `['logs', queue, job id]`
 * (`Queue.jobLogs`). DESIGN.md §4.1.
 */
export type Listing =
  | readonly ['groups', string, string | null]
  | readonly ['jobs', string, JobState, string | null]
  | readonly ['history', string, string | null]
  | readonly ['logs', string, string]
  | readonly ['schedules', string];

/**
 * A listing's tag, as a cursor carries it: 8 base64url characters (48 bits) of the SHA-256 of
 * the listing's JSON. Compact whatever the group id or queue name; it only tells listings apart
 * (two listings share one by chance once in 2^48), it hides nothing.
 */
export function listingTag(listing: Listing): string {
  return createHash('sha256').update(JSON.stringify(listing)).digest('base64url').slice(0, 8);
}

const NOT_A_CURSOR = 'is not a cursor this server issued';

/** What to do with a cursor that is well-formed but not this listing's: read it from its start. */
const START_OVER = 'read this listing from its start, without `after`';

/** One kind of page cursor as {@link pageCursor} reads it: groups', jobs' or history's. */
interface CursorKind {
  /** What it pages, as a refusal names it: `groups`, `jobs`, `history`. */
  readonly name: string;
  /** The letter of its texts; `legacy`, of its texts from before they carried their listing. */
  readonly letter: string;
  readonly legacy: string;
  /** The longest base64url text of one. */
  readonly maxChars: number;
  /** The position `rest` names, or null for one that does not parse. */
  readonly parse: (rest: string) => unknown;
}

/**
 * Every kind of cursor, filled as each codec is made: a cursor of one kind given to a listing of
 * another (a `groups` cursor to `jobs`) is told apart from garbage by these.
 */
const CURSOR_KINDS: CursorKind[] = [];

/** Each kind's issued form, `<letter>:<8-character tag>:<position>`, made once per kind. */
const ISSUED = new Map<CursorKind, RegExp>();
function issuedBy(kind: CursorKind): RegExp {
  let issued = ISSUED.get(kind);
  if (issued === undefined) {
    issued = new RegExp(`^${kind.letter}:([A-Za-z0-9_-]{8}):(.*)$`, 's');
    ISSUED.set(kind, issued);
  }
  return issued;
}

/**
 * What a text decoded from a cursor is to `kind`: its listing's tag (null: legacy) and position,
 * or null when it is none of `kind`'s. `kind.parse` may throw (BAD_USER_INPUT `after`) for a
 * position it refuses; for another kind than the one asked (`strict` false) that is "none".
 */
function readCursor(
  kind: CursorKind,
  value: string,
  text: string,
  strict: boolean,
): { tag: string | null; position: unknown } | null {
  if (value.length > kind.maxChars) return null;
  const match = issuedBy(kind).exec(text);
  const legacy = match === null && text.startsWith(`${kind.legacy}:`);
  const rest = match?.[2] ?? (legacy ? text.slice(kind.legacy.length + 1) : null);
  if (rest === null) return null;
  let position: unknown = null;
  try {
    position = kind.parse(rest);
  } catch (error) {
    if (strict) throw error;
  }
  return position === null ? null : { tag: match?.[1] ?? null, position };
}

/**
 * The codec of one kind of page cursor: base64url of `<letter>:<tag>:<position>`, the tag of the
 * listing that issued it ({@link listingTag}) and the position in it (`rest`, parsed by
 * `parse`, which answers null for one that does not parse). `decode` refuses, with
 * BAD_USER_INPUT (`after`): anything that is not a cursor of any kind ("is not a cursor this
 * server issued"); a cursor of the form issued before cursors carried their listing
 * (`<legacy>:<position>`), which cannot say whose it is; a cursor of another listing of this
 * kind (another queue, or of jobs another state or group, of groups another prefix, of history
 * another group) or of another kind (a `groups` cursor given to `jobs`) — those messages say to
 * read the listing from its start, without `after`.
 */
function pageCursor<T>(spec: CursorKind & { parse: (rest: string) => T | null; other: string }) {
  CURSOR_KINDS.push(spec);
  /** The cursors of `listing`'s positions: its tag (a SHA-256) worked out once per page. */
  const encoder = (listing: Listing): ((rest: string) => string) => {
    const head = `${spec.letter}:${listingTag(listing)}:`;
    return (rest) => Buffer.from(head + rest, 'utf8').toString('base64url');
  };
  const longest = (): number => Math.max(...CURSOR_KINDS.map((kind) => kind.maxChars));
  return {
    encoder,
    /** The cursor of the position `rest` in `listing` (one cursor: a page uses `encoder`). */
    encode(listing: Listing, rest: string): string {
      return encoder(listing)(rest);
    },
    /** The position a cursor of `listing` names; BAD_USER_INPUT (`after`) otherwise. */
    decode(value: unknown, listing: Listing): T {
      if (
        typeof value !== 'string' ||
        !/^[A-Za-z0-9_-]+$/.test(value) ||
        value.length > longest()
      ) {
        throw badInput('after', NOT_A_CURSOR);
      }
      const text = Buffer.from(value, 'base64url').toString('utf8');
      // Only what encode writes: no padding, no bytes that are not UTF-8, nothing after.
      if (Buffer.from(text, 'utf8').toString('base64url') !== value) {
        throw badInput('after', NOT_A_CURSOR);
      }
      const own = readCursor(spec, value, text, true);
      // Else the first other kind that reads it (each read once).
      let kind: CursorKind = spec;
      let read = own;
      for (const other of own === null ? CURSOR_KINDS : []) {
        read = other === spec ? null : readCursor(other, value, text, false);
        if (read !== null) {
          kind = other;
          break;
        }
      }
      if (read === null) throw badInput('after', NOT_A_CURSOR);
      if (read.tag === null) {
        throw badInput(
          'after',
          `is a cursor of an earlier version, which does not say what it pages: ${START_OVER}`,
        );
      }
      if (kind !== spec) {
        throw badInput(
          'after',
          `is a cursor of another listing (of ${kind.name}, not of ${spec.name}): ${START_OVER}`,
        );
      }
      if (own?.tag !== listingTag(listing)) {
        throw badInput('after', `is a cursor of another listing (${spec.other}): ${START_OVER}`);
      }
      return own.position as T;
    },
  };
}

/**
 * Opaque cursors of group pages (`Queue.groups`, `groupsWithPrefix`, `snapshot`): base64url of
 * `G:<tag>:<group id>` ({@link pageCursor}; before, `g:<group id>`).
 */
export const cursor = pageCursor<string>({
  name: 'groups',
  letter: 'G',
  legacy: 'g',
  maxChars: 400,
  parse: (rest) => groupId(rest, 'after'),
  other: 'another queue, or another prefix',
});

/**
 * Opaque cursors of schedule pages (`Queue.schedules`): base64url of `S:<tag>:<schedule id>`
 * ({@link pageCursor}; no form before it, so `s:` is never issued).
 */
export const scheduleCursor = pageCursor<string>({
  name: 'schedules',
  letter: 'S',
  legacy: 's',
  maxChars: 400,
  parse: (rest) => groupId(rest, 'after'),
  other: 'another queue, or another prefix',
});

/**
 * A schedule's interval (DESIGN.md §3, "Schedules"): an integer of ms from
 * `Limits.minEveryMs` (1 s) to `Limits.maxEveryMs` (365 days).
 * @throws RingmasterError BAD_USER_INPUT (`everyMs`)
 */
export function everyMs(value: unknown): number {
  return integerIn('everyMs', value, Limits.minEveryMs, Limits.maxEveryMs);
}

/** The job states, as the API names them (DESIGN.md §4). */
export const JOB_STATES: readonly JobState[] = [
  'PENDING',
  'DELAYED',
  'ACTIVE',
  'COMPLETED',
  'DEAD',
];

/** A job state: one of {@link JOB_STATES}; BAD_USER_INPUT (`argument`) otherwise. */
export function jobState(value: unknown, argument = 'state'): JobState {
  if (typeof value !== 'string' || !(JOB_STATES as readonly string[]).includes(value)) {
    throw badInput(argument, `must be one of ${JOB_STATES.join(', ')}`);
  }
  return value as JobState;
}

/** The group rankings of `Queue.topGroups`, as the API names them (DESIGN.md §3). */
export const GROUP_RANKINGS: readonly GroupRanking[] = ['PENDING', 'OLDEST_PENDING', 'ACTIVE'];

/** A group ranking: one of {@link GROUP_RANKINGS}; BAD_USER_INPUT (`by`) otherwise. */
export function groupRanking(value: unknown): GroupRanking {
  if (typeof value !== 'string' || !(GROUP_RANKINGS as readonly string[]).includes(value)) {
    throw badInput('by', `must be one of ${GROUP_RANKINGS.join(', ')}`);
  }
  return value as GroupRanking;
}

/** How many groups `Queue.topGroups` answers (`first`): an integer in 1..100. */
export function topGroupsFirst(value: unknown): number {
  return integerIn('first', value, 1, Limits.maxTopGroups);
}

/**
 * How many jobs one operator action handles per call (`limit`): an integer in 1..1,000
 * (DESIGN.md §4.1, "Operator actions").
 */
export function actionLimit(value: unknown): number {
  return integerIn('limit', value, 1, Limits.maxActionLimit);
}

/**
 * The ids an operator action names: an array of 1..1,000 entries (BAD_USER_INPUT `ids`
 * otherwise). Returns the entries that can name a job (decimal strings, as {@link jobId}) and
 * how many cannot: those name no job, so the action counts them as skipped without sending them.
 */
export function actionIds(value: unknown): { ids: string[]; malformed: number } {
  if (!Array.isArray(value)) throw badInput('ids', 'must be an array of job ids');
  if (value.length === 0 || value.length > Limits.maxActionIds) {
    throw badInput('ids', `must name 1 to ${Limits.maxActionIds} jobs`);
  }
  const ids = value.filter((id): id is string => typeof id === 'string' && JOB_ID.test(id));
  return { ids, malformed: value.length - ids.length };
}

/** A number as a sorted-set score is written in a job cursor: decimal, finite. */
const SCORE = /^-?\d{1,20}(\.\d{1,20})?(e[+-]?\d{1,3})?$/;

/** A job page's position: the score of the last job read (as Redis wrote it) and its id. */
export interface JobPosition {
  readonly score: string;
  readonly id: string;
}

/**
 * Opaque cursors of job pages (`Queue.jobs`, `Group.jobs`): base64url of
 * `J:<tag>:<score>:<id>` ({@link pageCursor}; before, `j:<score>:<id>`), the job's score in the
 * index read (as Redis wrote it) and its id. The id is the last part, so it may hold colons.
 */
export const jobCursor = pageCursor<JobPosition>({
  name: 'jobs',
  letter: 'J',
  legacy: 'j',
  maxChars: 600,
  parse: (rest) => {
    const match = /^([^:]+):(.+)$/s.exec(rest);
    if (!match) return null;
    const [, score, id] = match as unknown as [string, string, string];
    if (!SCORE.test(score) || !Number.isFinite(Number(score))) return null;
    // An index member: a job id (another writer's may be any text, bounded as a group id is).
    if (Buffer.byteLength(id, 'utf8') > Limits.groupIdBytes || CONTROL.test(id)) return null;
    return { score, id };
  },
  other: 'another queue, or jobs of another state or group',
});

const STREAM_ID = /^\d{1,20}-\d{1,20}$/;
const UINT64_MAX = 2n ** 64n - 1n;

/** Whether `id` is a stream id Redis accepts: `<ms>-<n>`, each part a 64-bit unsigned integer. */
function isStreamId(id: string): boolean {
  return STREAM_ID.test(id) && id.split('-').every((part) => BigInt(part) <= UINT64_MAX);
}

/**
 * Opaque cursors of history pages (`Queue.history`): base64url of `H:<tag>:<stream id>`
 * ({@link pageCursor}; before, `h:<stream id>`).
 */
export const historyCursor = pageCursor<string>({
  name: 'history',
  letter: 'H',
  legacy: 'h',
  maxChars: 96,
  parse: (rest) => (isStreamId(rest) ? rest : null),
  other: 'another queue, or another group',
});

/**
 * What a page of a job's log asks (`Queue.jobLogs`, `Job.logs`; DESIGN.md §3, "Progress and
 * logs"): `size` lines from the start or after `after` (`first`, default `Defaults.pageSize`), or
 * with `last` the newest `size` (`tail`). BAD_USER_INPUT (`options.<name>`, `first`, `last`)
 * otherwise; `after` is decoded by {@link logsCursor} against the job's listing.
 */
export function logsPage(value: unknown): { size: number; tail: boolean; after: string | null } {
  const opts = options('options', value as object, { first: true, after: true, last: true });
  const o = opts as { first?: unknown; after?: unknown; last?: unknown };
  const tail = o.last != null;
  if (tail && (o.first != null || o.after != null)) {
    throw badInput('last', 'is not given with first or after (it reads the newest lines)');
  }
  const size = tail
    ? integerIn('last', o.last, 1, Limits.maxPageSize)
    : pageSize(o.first ?? Defaults.pageSize);
  return { size, tail, after: o.after == null ? null : (o.after as string) };
}

/**
 * Opaque cursors of a job's log (`Queue.jobLogs`, `Job.logs`): base64url of `L:<tag>:<seq>`,
 * the seq of the last line read (addJobLog-2.lua): a page goes on after it while older lines
 * are dropped.
 */
export const logsCursor = pageCursor<number>({
  name: 'logs',
  letter: 'L',
  legacy: 'l',
  maxChars: 40,
  parse: (rest) => (/^(0|[1-9][0-9]{0,14})$/.test(rest) ? Number(rest) : null),
  other: 'another job',
});

/**
 * A change to a retention policy (`Queue.setRetention`'s `completed` or `dead`, named by
 * `argument`, the argument every refusal names): an object with `count` (an integer
 * 0..1,000,000) and/or `ageMs` (an integer 1..31,536,000,000, or null for no age bound); a field
 * left out (or undefined) is not changed. Returns the fields given.
 */
export function retentionChange(
  argument: string,
  value: unknown,
): { count?: number; ageMs?: number | null } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badInput(argument, 'must be an object { count, ageMs }');
  }
  const given = options(argument, value as Record<string, unknown>, { count: true, ageMs: true });
  const integer = (field: string, v: unknown, min: number, max: number): number =>
    integerIn(argument, v, min, max, field);
  const out: { count?: number; ageMs?: number | null } = {};
  if (given.count !== undefined) {
    out.count = integer('count', given.count, 0, Limits.maxRetentionCount);
  }
  if (given.ageMs === null) {
    out.ageMs = null;
  } else if (given.ageMs !== undefined) {
    out.ageMs = integer('ageMs', given.ageMs, 1, Limits.maxRetentionAgeMs);
  }
  return out;
}

/** A group's weight (turns per round of the ring): an integer in 1..1,000. */
export function weight(value: unknown): number {
  return integerIn('weight', value, 1, Limits.maxWeight);
}
