/** The handle {@link startRedisServer} returns: stop, kill and restart one server, one at a time. */
import { mkdir, rm } from 'node:fs/promises';
import { ownedDirs, syncExitHook } from './children.js';
import { HOST, KILL_WAIT_MS } from './constants.js';
import { type Launch, type LaunchSpec, launch } from './launch.js';
import { TIMED_OUT, within } from './probe.js';
import { waitUntilReady } from './ready.js';
import type { RedisProcess } from './types.js';

/** How long `stop()` waits after SIGTERM before it sends SIGKILL. */
const STOP_GRACE_MS = 5_000;
/** How long `kill()` waits for a terminating signal to end the child. */
const SIGNAL_EXIT_WAIT_MS = 10_000;

/**
 * Signals whose default action ends a process and which Redis does not ignore: after these,
 * `kill()` waits for the exit. Exported so other process controllers (the test harness's
 * container mode) wait on the same set.
 */
export const TERMINATING_SIGNALS: ReadonlySet<NodeJS.Signals> = new Set<NodeJS.Signals>([
  'SIGKILL',
  'SIGTERM',
  'SIGINT',
  'SIGQUIT',
  'SIGABRT',
  'SIGSEGV',
  'SIGBUS',
  'SIGILL',
  'SIGFPE',
]);

/** The process behind {@link RedisProcess}. Operations are serialised: one at a time. */
export class ManagedRedisProcess implements RedisProcess {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string | null;
  readonly #spec: LaunchSpec;
  readonly #ownedDir: boolean;
  readonly #readyTimeoutMs: number;
  #current: Launch;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    spec: LaunchSpec,
    current: Launch,
    dataDir: string | null,
    ownedDir: boolean,
    readyTimeoutMs: number,
  ) {
    this.#spec = spec;
    this.#current = current;
    this.port = spec.port;
    this.url = `redis://${HOST}:${spec.port}`;
    this.dataDir = dataDir;
    this.#ownedDir = ownedDir;
    this.#readyTimeoutMs = readyTimeoutMs;
  }

  get pid(): number {
    return this.#current.pid;
  }

  get exited(): boolean {
    return this.#current.exited;
  }

  recentOutput(): readonly string[] {
    return this.#current.output.lines();
  }

  stop(): Promise<void> {
    return this.#serial(async () => {
      await this.#terminate(this.#current);
      if (this.#ownedDir && this.dataDir !== null) {
        await rm(this.dataDir, { recursive: true, force: true });
        ownedDirs.delete(this.dataDir);
        syncExitHook();
      }
      this.#spec.logger?.info(
        { component: 'redis-server', port: this.port },
        'redis-server stopped',
      );
    });
  }

  kill(signal: NodeJS.Signals): Promise<void> {
    return this.#serial(async () => {
      const current = this.#current;
      const terminating = TERMINATING_SIGNALS.has(signal);
      if (current.exited) {
        if (terminating) return;
        throw new Error(`cannot send ${signal}: redis-server on port ${this.port} is not running`);
      }
      if (terminating) current.expected = true;
      current.child.kill(signal);
      if (!terminating) return;
      if ((await within(current.exit, SIGNAL_EXIT_WAIT_MS)) === TIMED_OUT) {
        throw new Error(
          `redis-server (pid ${current.pid}) did not exit within ${SIGNAL_EXIT_WAIT_MS} ms of ` +
            `${signal} (is it stopped by SIGSTOP? send SIGCONT or SIGKILL)`,
        );
      }
    });
  }

  restart(): Promise<void> {
    return this.#serial(async () => {
      await this.#terminate(this.#current);
      // After stop() a private directory is gone; recreate it (empty) at the same path.
      if (this.dataDir !== null) {
        await mkdir(this.dataDir, { recursive: true });
        if (this.#ownedDir) {
          ownedDirs.add(this.dataDir);
          syncExitHook();
        }
      }
      this.#current = launch(this.#spec);
      await waitUntilReady(this.#current, this.#spec, this.#readyTimeoutMs);
      this.#spec.logger?.info(
        { component: 'redis-server', pid: this.pid, port: this.port },
        'redis-server restarted',
      );
    });
  }

  /** Graceful shutdown of one child: SIGTERM (+SIGCONT), then SIGKILL after the grace period. */
  async #terminate(current: Launch): Promise<void> {
    if (current.exited) {
      await current.exit;
      return;
    }
    current.expected = true;
    current.child.kill('SIGTERM');
    // A SIGSTOPped process keeps SIGTERM pending until it is continued; continue it, so it can
    // shut down cleanly (and flush its append-only file) instead of waiting for SIGKILL.
    current.child.kill('SIGCONT');
    if ((await within(current.exit, STOP_GRACE_MS)) !== TIMED_OUT) return;
    this.#spec.logger?.warn(
      { component: 'redis-server', pid: current.pid, port: this.port },
      `redis-server ignored SIGTERM for ${STOP_GRACE_MS} ms; sending SIGKILL`,
    );
    current.child.kill('SIGKILL');
    if ((await within(current.exit, KILL_WAIT_MS)) === TIMED_OUT) {
      throw new Error(`redis-server (pid ${current.pid}) survived SIGKILL for ${KILL_WAIT_MS} ms`);
    }
  }

  #serial<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(operation, operation);
    // The queue only orders operations; each caller sees its own operation's error.
    this.#queue = result.catch(() => undefined);
    return result;
  }
}
