/**
 * Small helpers shared by the sections: clocks, percentiles, bounded concurrency, progress, a
 * question to a forked helper process, and the plain-text table every section prints.
 */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';

export { sleep };

/** Monotonic milliseconds. */
export const now = (): number => performance.now();

/** The `p`-th percentile (0..100) of `values` (nearest rank); NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Run `task(i)` for i in 0..count-1 with at most `concurrency` in flight. */
export async function pool(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}

/** A progress line on stderr, so stdout keeps only the report. */
export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** A countdown: `hit()` `target` times and `done` resolves with the time of the last hit. */
export function latch(target: number): {
  hit(): void;
  readonly count: number;
  done: Promise<number>;
} {
  let count = 0;
  let resolve: (at: number) => void = () => {};
  const done = new Promise<number>((r) => {
    resolve = r;
  });
  if (target <= 0) resolve(now());
  return {
    hit() {
      count++;
      if (count === target) resolve(now());
    },
    get count() {
      return count;
    },
    done,
  };
}

/** What a forked helper process (the fan-out's subscribers, the latency section's workers) answers. */
export interface ChildReply {
  type: string;
  message?: string;
}

/**
 * Send `command` (if any) to `child` and wait for its reply of type `expect`. Rejects when the
 * child exits first, after `timeoutMs`, or, with `failOnError`, on a reply `{ type: 'error' }`
 * (its `message` in the error). `name` says who the child is in those messages.
 */
export function askChild<R extends ChildReply, T extends R['type']>(
  child: ChildProcess,
  expect: T,
  o: { name: string; timeoutMs: number; command?: object | undefined; failOnError?: boolean },
): Promise<Extract<R, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${o.name} did not answer ${expect} in ${o.timeoutMs} ms`));
    }, o.timeoutMs);
    const onMessage = (reply: R) => {
      if (o.failOnError && reply.type === 'error') {
        cleanup();
        reject(new Error(`${o.name}: ${reply.message}`));
      } else if (reply.type === expect) {
        cleanup();
        resolve(reply as Extract<R, { type: T }>);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`${o.name} exited (${code}) before answering ${expect}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
    if (o.command) child.send(o.command);
  });
}

/** The flags of a measuring script, as {@link scriptFlags} reads them. */
export interface ScriptFlags {
  /** `--name=<whole number>`, at least `min`; `fallback` when absent. Throws naming the flag. */
  whole(name: string, fallback: number, min: number): number;
  /** `--name=<text>`, or undefined when absent. */
  text(name: string): string | undefined;
  /** whether `--name` was given */
  has(name: string): boolean;
}

/**
 * The `--name=value` and `--switch` arguments of a measuring script (bench/redisCost.ts,
 * bench/redisBound.ts), by node:util's parseArgs: an unknown flag, or a value given to a switch,
 * throws.
 */
export function scriptFlags(
  argv: readonly string[],
  names: { values: readonly string[]; switches: readonly string[] },
): ScriptFlags {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const name of names.values) options[name] = { type: 'string' };
  for (const name of names.switches) options[name] = { type: 'boolean' };
  const { values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false });
  const given = values as Record<string, string | boolean | undefined>;
  return {
    whole(name, fallback, min) {
      const raw = given[name];
      const n = raw === undefined ? fallback : Number(raw);
      if (!Number.isInteger(n) || n < min) {
        throw new Error(`--${name} needs a whole number of at least ${min}`);
      }
      return n;
    },
    text: (name) => (typeof given[name] === 'string' ? (given[name] as string) : undefined),
    has: (name) => given[name] === true,
  };
}

/**
 * Jobs 0..jobs − 1, made by `make`, sent by `send` in batches of `batch` (the last may be
 * shorter), one batch after another (bench/enqueue.ts, bench/enqueueCost.ts).
 */
export async function inBatches<T>(
  jobs: number,
  batch: number,
  make: (i: number) => T,
  send: (jobs: T[]) => Promise<unknown>,
): Promise<void> {
  for (let start = 0; start < jobs; start += batch) {
    const page: T[] = [];
    for (let i = start; i < Math.min(jobs, start + batch); i++) page.push(make(i));
    await send(page);
  }
}

/** The enqueue benchmarks' payload of job `i`: ~60 bytes of JSON, as an order might be. */
export const orderPayload = (i: number) => ({
  orderId: i,
  customer: `customer-${i % 997}`,
  total: i * 3,
});

/** A table cell: `n` rounded, with thousands separators; '–' when it is not a number. */
export const int = (n: number) =>
  Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–';
/** A table cell: `n` with `d` decimals; '–' when it is not a number. */
export const fixed = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');

/** A plain-text table: first column left-aligned, the rest right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
