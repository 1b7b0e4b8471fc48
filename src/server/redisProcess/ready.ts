/** Waiting for a launched child to answer, and the error thrown when it never does. */
import { HOST, KILL_WAIT_MS } from './constants.js';
import { describeExit, type Launch, type LaunchSpec } from './launch.js';
import { probe, within } from './probe.js';

/** Thrown when `redis-server` exits before it is ready, or is not ready in time. */
export class RedisStartError extends Error {
  readonly code = 'REDIS_START_FAILED';
  /** The last lines the failed child printed, oldest first. */
  readonly output: readonly string[];
  /** True when Redis said its port was already in use. */
  readonly addressInUse: boolean;
  constructor(message: string, output: readonly string[]) {
    super(
      output.length === 0
        ? `${message}\nIt printed nothing.`
        : `${message}\nLast output:\n${output.map((line) => `  | ${line}`).join('\n')}`,
    );
    this.name = 'RedisStartError';
    this.output = output;
    this.addressInUse = output.some((line) => /address already in use/i.test(line));
  }
}

/** A command line a person can paste into a shell, for error messages. */
function shellQuote(argv: readonly string[]): string {
  return argv
    .map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`))
    .join(' ');
}

/**
 * Wait until `current` answers on `port`, or fail with a {@link RedisStartError}.
 * Polls with a short, growing interval and stops early if the child exits. On failure the child
 * is SIGKILLed and reaped before the error is thrown, so nothing is left running.
 */
export async function waitUntilReady(
  current: Launch,
  spec: LaunchSpec,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const where = `${HOST}:${spec.port}`;
  const commandLine = `Command: ${shellQuote([spec.binary, ...spec.args])}`;
  let interval = 10;
  let lastProbe = 'not probed yet';
  for (;;) {
    if (current.exited) {
      const info = await current.exit;
      throw new RedisStartError(
        `redis-server (pid ${current.pid}) ${describeExit(info)} before it was ready on ${where}.\n${commandLine}`,
        current.output.lines(),
      );
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      current.expected = true;
      current.child.kill('SIGKILL');
      await within(current.exit, KILL_WAIT_MS);
      throw new RedisStartError(
        `redis-server (pid ${current.pid}) did not become ready on ${where} within ` +
          `${timeoutMs} ms (last probe: ${lastProbe}).\n${commandLine}`,
        current.output.lines(),
      );
    }
    const result = await probe(spec.port, Math.min(1_000, remaining));
    if (result.kind === 'ready') {
      if (result.pid === null || result.pid === current.pid) {
        current.expected = false;
        return;
      }
      // Someone else owns the port; our child will fail to bind and exit, and the loop sees it.
      lastProbe = `port answered by another Redis, pid ${result.pid}`;
    } else {
      lastProbe = result.detail;
    }
    await within(current.exit, Math.min(interval, Math.max(0, deadline - Date.now())));
    interval = Math.min(interval * 2, 100);
  }
}
