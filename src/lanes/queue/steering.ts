/**
 * `Queue`'s steering (admin): limits, rate limits, group pause and resume with their timed
 * overrides (DESIGN.md §4.8), the queue's pause, retention and weights. Each call validates its
 * arguments, registers the queue and runs one steering script, which records its history entry
 * (DESIGN.md §4.6). The contracts are on `Queue`'s methods (queue.ts), which delegate here.
 */
import { badInput } from '../errors.js';
import type {
  GroupReply,
  HistoryArgs,
  QueueLimitReply,
  RetentionReply,
} from '../scripts/commands.js';
import type {
  GroupInfo,
  QueueCap,
  QueueRetention,
  QueueState,
  RateLimitInput,
  RetentionChange,
  SteeringOptions,
} from '../types.js';
import * as validate from '../validate.js';
import type { QueueCore } from './core.js';
import type { AppliedOverrides, OverrideKind, TimedSteeringOptions } from './overrides.js';
import * as overrides from './overrides.js';
import { rateLimit } from './rateLimits.js';
import { groupInfo, queueCap } from './state.js';

// The names each options object may hold (`validate.options` refuses others).
const TIMED: validate.OptionNames<TimedSteeringOptions> = { forMs: true, actor: true };
const RETENTION = { completed: true, dead: true } as const;

export class Steering {
  constructor(private readonly core: QueueCore) {}

  async setLimit(
    group: string,
    limit: number,
    options: TimedSteeringOptions = {},
  ): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const n = validate.limit(limit);
    const history = this.core.historyArgs(options, 'options', TIMED);
    const ms = overrides.forMs(options?.forMs);
    return this.groupFrom(
      g,
      await this.core.steered(() =>
        this.core.commands.setLimit({ group: g, limit: n, forMs: ms, history }),
      ),
    );
  }

  async clearLimit(group: string, options: SteeringOptions = {}): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const history = this.core.historyArgs(options);
    return this.groupFrom(
      g,
      await this.core.steered(() => this.core.commands.clearLimit({ group: g, history })),
    );
  }

  async setRateLimit(
    group: string,
    limit: RateLimitInput,
    options?: SteeringOptions,
  ): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const { max, windowMs, burst } = rateLimit(limit);
    const history = this.core.historyArgs(options);
    return this.groupFrom(
      g,
      await this.core.steered(() =>
        this.core.commands.setRateLimit({ group: g, max, windowMs, burst, history }),
      ),
    );
  }

  async clearRateLimit(group: string, options?: SteeringOptions): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const history = this.core.historyArgs(options);
    return this.groupFrom(
      g,
      await this.core.steered(() => this.core.commands.clearRateLimit({ group: g, history })),
    );
  }

  async pause(group: string, options: TimedSteeringOptions = {}): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const history = this.core.historyArgs(options, 'options', TIMED);
    const ms = overrides.forMs(options?.forMs);
    return this.groupFrom(
      g,
      await this.core.steered(() => this.core.commands.pause({ group: g, forMs: ms, history })),
    );
  }

  async resume(group: string, options: TimedSteeringOptions = {}): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const history = this.core.historyArgs(options, 'options', TIMED);
    const ms = overrides.forMs(options?.forMs);
    return this.groupFrom(
      g,
      await this.core.steered(() => this.core.commands.resume({ group: g, forMs: ms, history })),
    );
  }

  async pauseQueue(options?: SteeringOptions): Promise<QueueState> {
    const history = this.core.historyArgs(options);
    await this.core.steered(() => this.core.commands.pauseQueue(history));
    return 'PAUSED';
  }

  async resumeQueue(options?: SteeringOptions): Promise<QueueState> {
    const history = this.core.historyArgs(options);
    await this.core.steered(() => this.core.commands.resumeQueue(history));
    return 'RUNNING';
  }

  async setQueueLimit(limit: number, options: TimedSteeringOptions = {}): Promise<QueueCap> {
    const n = validate.limit(limit);
    const history = this.core.historyArgs(options, 'options', TIMED);
    const ms = overrides.forMs(options?.forMs);
    const reply = await this.core.steered(() =>
      this.core.commands.setQueueLimit({ limit: n, forMs: ms, history }),
    );
    if (reply[0] === -1) {
      throw badInput(
        'limit',
        `must be at least the sum of the groups' reserves (${reply[3]}): lower a reserve first`,
      );
    }
    return this.capFrom(reply);
  }

  async clearQueueLimit(options: SteeringOptions = {}): Promise<QueueCap> {
    const history = this.core.historyArgs(options);
    return this.capFrom(
      await this.core.steered(() => this.core.commands.setQueueLimit({ limit: null, history })),
    );
  }

  async setReserve(
    group: string,
    reserve: number,
    options: SteeringOptions = {},
  ): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const n = validate.reserve(reserve);
    const history = this.core.historyArgs(options);
    const [status, fields] = await this.core.steered(() =>
      this.core.commands.setReserve({ group: g, reserve: n, history }),
    );
    if (status === -1) {
      throw badInput('reserve', `must not be above the group's limit (${String(fields[0])})`);
    }
    if (status === -2) {
      throw badInput(
        'reserve',
        "the sum of the groups' reserves would pass the queue's cap (or the cap a timed one reverts to)",
      );
    }
    return this.groupFrom(g, fields);
  }

  async setMaxPending(
    group: string,
    maxPending: number | null,
    options: SteeringOptions = {},
  ): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const n = validate.maxPending(maxPending);
    const history = this.core.historyArgs(options);
    return this.groupFrom(
      g,
      await this.core.steered(() =>
        this.core.commands.setMaxPending({ group: g, maxPending: n, history }),
      ),
    );
  }

  async setDefaultMaxPending(
    maxPending: number | null,
    options: SteeringOptions = {},
  ): Promise<number | null> {
    const n = validate.maxPending(maxPending);
    const history = this.core.historyArgs(options);
    const after = await this.core.steered(() =>
      this.core.commands.setDefaultMaxPending({ maxPending: n, history }),
    );
    return after === null ? null : Number(after);
  }

  async setRetention(
    policies: { completed?: RetentionChange | undefined; dead?: RetentionChange | undefined } = {},
    options?: SteeringOptions,
  ): Promise<QueueRetention> {
    if (policies === null || typeof policies !== 'object') {
      throw badInput('completed', 'setRetention takes { completed?, dead? }');
    }
    validate.options('policies', policies, RETENTION);
    const history = this.core.historyArgs(options);
    const completed =
      policies.completed === undefined
        ? {}
        : validate.retentionChange('completed', policies.completed);
    const dead = policies.dead === undefined ? {} : validate.retentionChange('dead', policies.dead);
    const count = (n: number | undefined) => (n === undefined ? '' : String(n));
    const age = (ms: number | null | undefined) =>
      ms === undefined ? '' : ms === null ? 'none' : String(ms);
    const reply = await this.core.steered(() =>
      this.core.commands.setRetention({
        completedCount: count(completed.count),
        completedAgeMs: age(completed.ageMs),
        deadCount: count(dead.count),
        deadAgeMs: age(dead.ageMs),
        history,
      }),
    );
    return retentionReply(reply);
  }

  async setWeight(group: string, weight: number, options?: SteeringOptions): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const w = validate.weight(weight);
    const history = this.core.historyArgs(options);
    return this.groupFrom(
      g,
      await this.core.steered(() => this.core.commands.setWeight({ group: g, weight: w, history })),
    );
  }

  async cancelOverride(
    group: string,
    kind: OverrideKind,
    options: SteeringOptions = {},
  ): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const k = overrides.overrideKind(kind);
    const history = this.core.historyArgs(options);
    return this.groupFrom(
      g,
      await this.core.commands.cancelOverride({ group: g, kind: k, history }),
    );
  }

  async applyOverrides(options: { batch?: number } = {}): Promise<AppliedOverrides> {
    const opts = validate.options('options', options, { batch: true });
    const batch = validate.reapBatch(opts.batch ?? overrides.APPLY_OVERRIDES_BATCH);
    // The one caller recorded as the timer, which no options may name (validate.actor).
    const history: HistoryArgs = [overrides.TIMER_ACTOR, this.core.historyMaxLen];
    let applied = 0;
    for (;;) {
      const [n, next] = await this.core.commands.applyOverrides({ batch, history });
      applied += n;
      if (n < batch) return { applied, nextAt: next === null ? null : Number(next) };
    }
  }

  /** {@link QueueCap} from `setQueueLimit-3.lua`'s reply. */
  private capFrom([, limit, active, reserved, override]: QueueLimitReply): QueueCap {
    return queueCap(limit, active, reserved, override);
  }

  private groupFrom(id: string, fields: GroupReply): GroupInfo {
    return groupInfo(this.core.name, id, fields);
  }
}

/** {@link QueueRetention} from `setRetention-1.lua`'s reply. */
function retentionReply([
  completedCount,
  completedAgeMs,
  deadCount,
  deadAgeMs,
]: RetentionReply): QueueRetention {
  return {
    completed: { count: Number(completedCount), ageMs: completedAgeMs ?? null },
    dead: { count: Number(deadCount), ageMs: deadAgeMs ?? null },
  };
}
