/**
 * `Queue`'s schedules (DESIGN.md §3, "Schedules"): upsert, remove, the page read, and the tick
 * the reaper's passes and the workers run. A tick is a compare-and-set: `dueSchedules-2.lua`
 * reads the due schedules and the Redis clock's now, this module computes each one's tick to
 * fire (the latest due: missed ticks fire once) and its next tick (croner for a cron
 * expression), and `fireSchedules-11.lua` enqueues the job and moves the schedule on only if
 * nobody did in between. The contracts are on `Queue`'s methods (queue.ts), which delegate here.
 */
import { createHash } from 'node:crypto';
import { Cron } from 'croner';
import { Defaults } from '../defaults.js';
import { badInput, cutText } from '../errors.js';
import type { BackoffArgs, EnqueueArgs } from '../scripts/commands.js';
import type { Schedule, SchedulePage, SteeringOptions } from '../types.js';
import * as validate from '../validate.js';
import type { QueueCore } from './core.js';
import type { BackoffPolicyInput } from './producing.js';

/** What {@link Queue.upsertSchedule} takes: exactly one of `everyMs` and `cron`. */
export interface ScheduleInput {
  /** The schedule's id: a group id's rules (1–256 UTF-8 bytes, no control characters). */
  readonly id: string;
  /** The group each tick's job goes to. */
  readonly group: string;
  /** An interval (ms, 1,000..31,536,000,000): ticks every everyMs from the upsert. */
  readonly everyMs?: number | null | undefined;
  /** A cron expression: 5 fields, or 6 with seconds first (croner's syntax). */
  readonly cron?: string | null | undefined;
  /** The IANA time zone the cron expression is read in (default UTC); only with `cron`. */
  readonly timezone?: string | null | undefined;
  /** Each job's payload, as an enqueue's. */
  readonly payload?: unknown;
  /** Each job's maxAttempts, as an enqueue's (default 3). */
  readonly maxAttempts?: number | null | undefined;
  /** Each job's retry policy, as an enqueue's. */
  readonly backoff?: BackoffPolicyInput | null | undefined;
  /** Each job's priority, 1..9 (default 5). */
  readonly priority?: number | null | undefined;
}

/** Options of {@link Queue.schedules}. */
export interface SchedulesOptions {
  /** Page size 1..500 (default 50). */
  readonly first?: number | undefined;
  /** A cursor from a page (`endCursor`): the schedules after it. */
  readonly after?: string | null | undefined;
}

const INPUT: validate.OptionNames<ScheduleInput> = {
  id: true,
  group: true,
  everyMs: true,
  cron: true,
  timezone: true,
  payload: true,
  maxAttempts: true,
  backoff: true,
  priority: true,
};

/** A schedule's definition as `P:{Q}:schedule` holds it (JSON, these keys in this order). */
interface Definition {
  readonly group: string;
  readonly everyMs: number | null;
  readonly cron: string | null;
  readonly timezone: string | null;
  /** JSON text, or null for none. */
  readonly payload: string | null;
  readonly maxAttempts: number;
  readonly backoff: BackoffArgs | null;
  readonly priority: number;
}

/** Page size when none is asked for. */
const SCHEDULES_PAGE_SIZE = 50;
// C0, DEL and C1 control characters.
const CONTROL = /\p{Cc}/u;

/**
 * A cron expression read in `timezone` (UTC for null), as croner reads it: 5 fields, or 6 with
 * seconds first; day-of-month and day-of-week combined with OR (croner's default, as Vixie cron).
 * @throws RingmasterError BAD_USER_INPUT (`cron`, `timezone`)
 */
function cronOf(expression: string, timezone: string | null): Cron {
  try {
    return new Cron(expression, { timezone: timezone ?? 'UTC', mode: '5-or-6-parts' });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw badInput('cron', `'${expression}' is not a cron expression: ${message}`);
  }
}

/** A text argument of a schedule: a string of 1..max characters, no control characters. */
function text(argument: string, value: unknown, max: number): string {
  if (typeof value !== 'string' || value.trim().length === 0) {
    throw badInput(argument, 'must be a non-empty string');
  }
  if (value.length > max || CONTROL.test(value)) {
    throw badInput(argument, `must be at most ${max} characters, without control characters`);
  }
  return value;
}

/**
 * An IANA time zone name, as the platform's Intl knows it (`Europe/Berlin`, `UTC`).
 * @throws RingmasterError BAD_USER_INPUT (`timezone`)
 */
function timezoneOf(value: unknown): string {
  const zone = text('timezone', value, validate.Limits.timezoneLength);
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw badInput('timezone', `'${zone}' is not an IANA time zone (e.g. Europe/Berlin, UTC)`);
  }
  return zone;
}

/**
 * The definition of an upsert's input, validated as DESIGN.md §5 says (BAD_USER_INPUT naming
 * the argument): the id, the group, exactly one of everyMs and cron (a cron that never fires is
 * refused), the time zone with a cron only, and the job's options as an enqueue's.
 */
function definitionOf(input: ScheduleInput): { id: string; definition: Definition } {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw badInput('schedule', 'must be an object { id, group, everyMs | cron, … }');
  }
  const v = validate.options('schedule', input, INPUT);
  const id = validate.groupId(v.id, 'id');
  const group = validate.groupId(v.group);
  const hasEvery = v.everyMs != null;
  const hasCron = v.cron != null;
  if (hasEvery === hasCron) {
    throw badInput(hasEvery ? 'cron' : 'everyMs', 'give exactly one of everyMs and cron');
  }
  const everyMs = hasEvery ? validate.everyMs(v.everyMs) : null;
  const cron = hasCron ? text('cron', v.cron, validate.Limits.cronLength).trim() : null;
  if (v.timezone != null && cron === null) {
    throw badInput('timezone', 'applies only to a cron schedule');
  }
  const timezone = v.timezone == null ? null : timezoneOf(v.timezone);
  if (cron !== null && cronOf(cron, timezone).nextRun() === null) {
    throw badInput('cron', `'${cron}' never fires`);
  }
  const payload = validate.payload(v.payload);
  const maxAttempts = validate.maxAttempts(v.maxAttempts ?? Defaults.maxAttempts);
  const backoff = v.backoff == null ? null : validate.backoff(v.backoff);
  const priority = v.priority == null ? Defaults.priority : validate.priority(v.priority);
  return {
    id,
    definition: {
      group,
      everyMs,
      cron,
      timezone,
      payload: payload === '' ? null : payload,
      maxAttempts,
      backoff,
      priority,
    },
  };
}

/** The first tick of `d` after `now` (ms): an interval's one everyMs on, a cron's next match. */
function firstTick(d: Definition, now: number): number {
  if (d.everyMs !== null) return now + d.everyMs;
  return (
    cronOf(d.cron as string, d.timezone)
      .nextRun(new Date(now))
      ?.getTime() ?? Infinity
  );
}

/**
 * The tick of `d` to fire at `now`, its score being `due` (≤ now), and the tick after now: the
 * latest tick due, so ticks missed while nothing ticked fire once (DESIGN.md §3, "Schedules").
 * An interval keeps its phase (due + k × everyMs); a cron's next tick is its next match after
 * now (Infinity when it has none left: it is never due again).
 */
export function ticksOf(
  d: Pick<Definition, 'everyMs' | 'cron' | 'timezone'>,
  due: number,
  now: number,
): { fired: number; next: number } {
  if (d.everyMs !== null) {
    const fired = due + Math.floor((now - due) / d.everyMs) * d.everyMs;
    return { fired, next: fired + d.everyMs };
  }
  const cron = cronOf(d.cron as string, d.timezone);
  // A run earlier in the same second as the reference counts: now + 1 takes a tick at now.
  const latest = cron.previousRuns(1, new Date(now + 1))[0]?.getTime() ?? due;
  return {
    fired: Math.max(latest, due),
    next: cron.nextRun(new Date(now))?.getTime() ?? Infinity,
  };
}

/** The SHA-1 (hex) of a definition's JSON text: what fireSchedules and the audit compare. */
export function definitionSha(textOf: string): string {
  return createHash('sha1').update(textOf, 'utf8').digest('hex');
}

/** Why a stored definition is not one; `unread` when only this engine cannot read it. */
interface NotOne {
  readonly why: string;
  /**
   * Its cron or time zone is a string that this engine's croner or Intl does not read (or a
   * cron that matches no more): another engine's version may, so repair leaves it.
   */
  readonly unread: boolean;
  /** With `unread`: the definition as stored (all but its cron and time zone checked). */
  readonly stored?: Definition;
}

/**
 * The definition stored for schedule `id`, judged by the audit (DESIGN.md §4.5, "Schedules"):
 * it is one when it is what an upsert writes — a JSON object whose group, everyMs, cron,
 * timezone, maxAttempts, backoff and priority each pass the upsert's checks as stored (none
 * missing, none defaulted; the cron matching again) and whose payload is null or JSON text.
 * @returns the definition, or why it is not one (naming the field)
 */
function storedDefinition(id: string, textOf: string): Definition | NotOne {
  const not = (why: string): NotOne => ({ why, unread: false });
  let value: unknown;
  try {
    value = JSON.parse(textOf);
  } catch {
    return not('not JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return not('not a JSON object');
  }
  const s = value as Record<string, unknown>;
  let payload: unknown;
  if (typeof s.payload === 'string') {
    try {
      payload = JSON.parse(s.payload);
    } catch {
      return not('payload: not JSON text');
    }
  } else if (s.payload !== null) {
    return not('payload: must be null or JSON text');
  }
  const input: ScheduleInput = {
    id,
    group: s.group as string,
    everyMs: s.everyMs as number,
    cron: s.cron as string,
    timezone: s.timezone as string,
    payload,
    maxAttempts: s.maxAttempts as number,
    backoff: s.backoff as BackoffPolicyInput,
    priority: s.priority as number,
  };
  let made: Definition;
  let unread: string | null = null;
  try {
    ({ definition: made } = definitionOf(input));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    // Only its cron or time zone unread when, with a cron every engine reads in UTC, all else
    // is as an upsert writes it (checked below).
    if (typeof s.cron !== 'string' || (s.timezone !== null && typeof s.timezone !== 'string')) {
      return not(why);
    }
    try {
      ({ definition: made } = definitionOf({ ...input, cron: '* * * * *', timezone: null }));
    } catch {
      return not(why);
    }
    unread = why;
  }
  // As stored, not as an upsert would default them: a tick sends them as read (a cron's
  // surrounding spaces, which the upsert trims, croner ignores).
  const cron = typeof s.cron === 'string' ? s.cron.trim() : s.cron;
  for (const field of ['group', 'everyMs', 'maxAttempts', 'priority'] as const) {
    if (s[field] !== made[field]) return not(`${field}: not as an upsert writes it`);
  }
  if (unread === null && s.timezone !== made.timezone) {
    return not('timezone: not as an upsert writes it');
  }
  if (unread === null && cron !== made.cron) return not('cron: not as an upsert writes it');
  const b = s.backoff as Record<string, unknown> | null;
  const m = made.backoff;
  if (
    (b === null) !== (m === null) ||
    (b !== null &&
      m !== null &&
      (b.type !== m.type ||
        b.delayMs !== m.delayMs ||
        b.maxDelayMs !== m.maxDelayMs ||
        b.jitter !== m.jitter))
  ) {
    return not('backoff: not as an upsert writes it');
  }
  const stored: Definition = {
    ...made,
    cron: s.cron as string | null,
    timezone: s.timezone as string | null,
    payload: s.payload as string | null,
  };
  return unread === null ? stored : { why: unread, unread: true, stored };
}

/** A score as Redis writes it ('inf', '-inf' or a number), as a number. */
function scoreOf(text: string): number {
  if (text === 'inf' || text === '+inf') return Infinity;
  if (text === '-inf') return -Infinity;
  return Number(text);
}

/** What the audit finds wrong with one schedule's definition and next tick, and its mend. */
export interface ScheduleFinding {
  /**
   * 'next': set its next tick to `next`; 'remove': drop the schedule (not one); 'none': left as
   * it is (a cron or time zone only this engine does not read).
   */
  readonly action: 'next' | 'remove' | 'none';
  /** ms, Infinity for never due; null with 'remove'. */
  readonly next: number | null;
  readonly expected: string;
  readonly found: string;
}

/** A finding's quote of stored text: its first 100 characters, then '…'. */
const quote = (textOf: string) => (textOf.length <= 100 ? textOf : `${cutText(textOf, 100)}…`);

/**
 * The audit's judgement of schedule `id` (DESIGN.md §4.5, "Schedules"), from its definition's
 * text, its next tick as Redis writes it (null for none), its last run (`<lastRunAt>:<jobId>`,
 * null for none) and the Redis clock's now (ms):
 * - a definition that is not one ({@link storedDefinition}): 'remove' (a tick would skip it,
 *   due for ever, and `Queue.schedules` lists it as unreadable) — or 'none' when only its cron or
 *   time zone is one this engine does not read (another version's croner or Intl may);
 * - one without a next tick (it would never fire), or with one later than the next its
 *   definition allows after now (an interval's now + everyMs, a cron's next match) or -inf:
 *   'next', its next tick after now — an interval's in the phase of its last run when it has
 *   one, else now + everyMs; a cron's next match. Ticks it missed are not fired.
 * @returns null when nothing is wrong
 */
export function judgeSchedule(
  id: string,
  textOf: string,
  score: string | null,
  runs: string | null,
  now: number,
): ScheduleFinding | null {
  const d = storedDefinition(id, textOf);
  if ('why' in d) {
    return {
      action: d.unread ? 'none' : 'remove',
      next: null,
      expected: d.unread
        ? 'a cron and time zone this engine reads (not repaired: upsert or remove it)'
        : 'no schedule (its definition is not one: removed)',
      found: `definition ${quote(textOf)}: ${d.why}`,
    };
  }
  const bound = firstTick(d, now);
  const at = score === null ? null : scoreOf(score);
  if (at !== null && at > -Infinity && at <= bound) return null;
  const last = runs === null ? null : /^(\d+):./.exec(runs)?.[1];
  const lastRunAt = last == null ? null : Number(last);
  const next =
    d.everyMs !== null && lastRunAt !== null && Number.isSafeInteger(lastRunAt) && lastRunAt <= now
      ? ticksOf(d, lastRunAt, now).next
      : bound;
  return {
    action: 'next',
    next,
    expected: `a next tick at ${Number.isFinite(next) ? next : '+inf'}`,
    found:
      score === null
        ? 'no next tick: it would never fire'
        : `a next tick at ${score}, ${at === -Infinity ? 'not a time' : 'later than its definition allows'}`,
  };
}

/** An enqueue's arguments for a tick of `d` (no key, no delay). */
function jobOf(d: Definition): EnqueueArgs {
  return {
    group: d.group,
    payload: d.payload ?? '',
    maxAttempts: d.maxAttempts,
    backoff: d.backoff ?? undefined,
    priority: d.priority === Defaults.priority ? undefined : d.priority,
  };
}

/** A payload's JSON value (its text when it is not JSON: another writer's). */
function parsed(textOf: string | null): unknown {
  if (textOf === null) return null;
  try {
    return JSON.parse(textOf);
  } catch {
    return textOf;
  }
}

/** A schedule as the scripts answer it: its definition (as read), score and last run. */
function decodeSchedule(
  queue: string,
  id: string,
  d: Definition,
  score: string | number | null,
  runs: string | null,
): Schedule {
  const colon = runs === null ? -1 : runs.indexOf(':');
  return {
    queue,
    id,
    group: d.group,
    everyMs: d.everyMs,
    cron: d.cron,
    timezone: d.timezone,
    payload: parsed(d.payload),
    maxAttempts: d.maxAttempts,
    backoff: d.backoff,
    priority: d.priority,
    nextRunAt: score === null ? Number.NaN : Number(score),
    lastRunAt: runs === null || colon < 0 ? null : Number(runs.slice(0, colon)),
    lastJobId: runs === null || colon < 0 ? null : runs.slice(colon + 1),
  };
}

/** One schedule's fire, as `fireSchedules-11.lua` takes it. */
type Fire = Parameters<QueueCore['commands']['fireSchedules']>[0][number];

export class Scheduling {
  constructor(private readonly core: QueueCore) {}

  async upsert(input: ScheduleInput, options?: SteeringOptions): Promise<Schedule> {
    const history = this.core.historyArgs(options);
    const { id, definition } = definitionOf(input);
    const textOf = JSON.stringify(definition);
    const now = await this.core.commands.clock();
    const max = validate.Limits.maxSchedules;
    const [status, nextRunAt, runs] = await this.core.steered(() =>
      this.core.commands.upsertSchedule({
        id,
        definition: textOf,
        nextRunAt: firstTick(definition, now),
        max,
        history,
      }),
    );
    if (status < 0) {
      throw badInput(
        'id',
        `queue ${this.core.name} holds ${max} schedules already: remove one first`,
      );
    }
    return decodeSchedule(this.core.name, id, definition, nextRunAt, runs);
  }

  async remove(id: string, options?: SteeringOptions): Promise<boolean> {
    const history = this.core.historyArgs(options);
    const given = validate.groupId(id, 'id');
    return (await this.core.commands.removeSchedule({ id: given, history })) === 1;
  }

  async page(options: SchedulesOptions = {}): Promise<SchedulePage> {
    const opts = validate.options('options', options, { first: true, after: true });
    const first = validate.pageSize(opts.first ?? SCHEDULES_PAGE_SIZE);
    const listing = ['schedules', this.core.name] as const;
    const after = opts.after == null ? null : validate.scheduleCursor.decode(opts.after, listing);
    const [total, more, entries] = await this.core.commands.readSchedules({ after, first });
    const schedules: Schedule[] = [];
    const unreadable: string[] = [];
    for (const [id, textOf, score, runs] of entries) {
      // Judged as a tick and the audit judge it; one whose cron or zone only this engine does
      // not read is listed as stored.
      const d = storedDefinition(id, textOf);
      const shown = 'why' in d ? d.stored : d;
      if (shown === undefined) unreadable.push(id);
      else schedules.push(decodeSchedule(this.core.name, id, shown, score, runs));
    }
    const cursors = schedules.map((s) => validate.scheduleCursor.encode(listing, s.id));
    const last = entries.at(-1)?.[0];
    return {
      schedules,
      cursors,
      unreadable,
      hasNextPage: more === 1,
      endCursor: last === undefined ? null : validate.scheduleCursor.encode(listing, last),
      totalCount: total,
    };
  }

  async tick(): Promise<number> {
    const limit = Defaults.scheduleTickBatch;
    let enqueued = 0;
    // Schedules it cannot fire stay due where they are (DESIGN.md §3, "Schedules"): the next
    // read passes over them, up to a queue's most schedules read in all.
    let stuck = 0;
    for (let read = 0; read < validate.Limits.maxSchedules; read += limit) {
      const reply = await this.core.commands.dueSchedules({ limit, offset: stuck });
      const due = (reply.length - 1) / 3;
      const fires = this.firesOf(reply);
      if (fires.length > 0) enqueued += await this.fire(fires);
      stuck += due - fires.length;
      if (due < limit || fires.length === due) break;
    }
    return enqueued;
  }

  /** The fires of a `dueSchedules-2.lua` reply: its schedules this engine can fire. */
  private firesOf(reply: (string | number | null)[]): Fire[] {
    const now = Number(reply[0]);
    const fires: Fire[] = [];
    for (let i = 1; i + 2 < reply.length; i += 3) {
      const id = String(reply[i]);
      const expected = String(reply[i + 1]);
      const textOf = reply[i + 2];
      // No definition, or not one as the audit judges it (another writer's, or a cron or time
      // zone this engine does not read): never fired, never moved.
      if (typeof textOf !== 'string') continue;
      const definition = storedDefinition(id, textOf);
      if ('why' in definition) continue;
      let ticks: { fired: number; next: number };
      try {
        ticks = ticksOf(definition, Number(expected), now);
      } catch {
        continue;
      }
      fires.push({
        id,
        expected,
        next: ticks.next,
        sha: definitionSha(textOf),
        firedAt: ticks.fired,
        job: jobOf(definition),
      });
    }
    return fires;
  }

  /** Fire `fires` (`fireSchedules-11.lua`); answers the jobs enqueued (count). */
  private async fire(fires: Fire[]): Promise<number> {
    const base = this.core.keys.base;
    const out = await this.core.laidOut(() =>
      this.core.commands.fireSchedules(fires, this.core.connection.state.idFloor(base)),
    );
    const ids = out.filter((_, i) => i % 2 === 1).filter((id): id is string => id !== null);
    if (ids.length > 0) this.core.connection.state.noteIds(base, ids);
    return ids.length;
  }
}
