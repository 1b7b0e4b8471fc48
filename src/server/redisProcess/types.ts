/** The public types of a managed `redis-server` child: its logger, start options and handle. */
/**
 * The logging surface this module needs; a pino `Logger` (or a child of one) satisfies it.
 * Every call passes a context object first, pino style: `logger.info({ pid, port }, 'message')`.
 */
export interface RedisProcessLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Options of {@link startRedisServer}. Every field is optional. */
export interface StartRedisServerOptions {
  /**
   * TCP port on 127.0.0.1. Default: a free port picked with get-port (never 6379, which belongs
   * to whatever Redis the machine already runs). With a picked port, a lost race for it (another
   * process binds it first) is retried on a new port; a given port is used as is.
   */
  port?: number;
  /**
   * Directory for Redis' files (`--dir`), created if missing. Giving one turns the append-only
   * file on unless `appendOnly` is false, so data survives a stop, a SIGKILL and a restart.
   */
  dataDir?: string;
  /**
   * `--appendonly yes|no`. Default: true when `dataDir` is given, else false. True without a
   * `dataDir` keeps the file in a private temporary directory that `stop()` deletes.
   */
  appendOnly?: boolean;
  /** `--notify-keyspace-events` flags, e.g. `'KEA'`. Default: Redis' own (none). */
  notifyKeyspaceEvents?: string;
  /**
   * More command-line arguments, appended last so they override the ones above, e.g.
   * `['--appendfsync', 'always']` or `['--rename-command', 'CONFIG', '']`.
   */
  extraArgs?: readonly string[];
  /** Where to log start, stop and exits (info/warn) and each line Redis prints (debug). */
  logger?: RedisProcessLogger;
  /** How long to wait for the server to answer, in milliseconds. Default 10 000. */
  readyTimeoutMs?: number;
  /** Path of the `redis-server` binary. Default: found on `searchPath`. */
  binary?: string;
  /** The PATH-style list searched for `redis-server`. Default `process.env.PATH`. */
  searchPath?: string;
}

/** A running (or stopped) `redis-server` child. */
export interface RedisProcess {
  /** `redis://127.0.0.1:<port>`. Unchanged by `restart()`. */
  readonly url: string;
  /** The loopback TCP port. Unchanged by `restart()`. */
  readonly port: number;
  /** The pid of the current child (a new one after each `restart()`). */
  readonly pid: number;
  /** The data directory in use, or null when Redis keeps nothing on disk. */
  readonly dataDir: string | null;
  /** True once the current child has exited (stopped, killed or crashed). */
  readonly exited: boolean;
  /**
   * Shut the server down for good: SIGTERM (plus SIGCONT, so a frozen server can act on it),
   * SIGKILL if it has not exited after 5 s; then delete the private temporary directory, if any.
   * Idempotent. Throws only if the child survives SIGKILL for another 5 s.
   */
  stop(): Promise<void>;
  /**
   * Send `signal` to the server. For signals that end it (SIGKILL, SIGTERM, SIGINT, SIGQUIT,
   * SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE) resolves once it has exited — throwing if it has
   * not within 10 s — and is a no-op if it already has. Any other signal (SIGSTOP, SIGCONT, ...)
   * is sent without waiting, and throws if the server is not running.
   */
  kill(signal: NodeJS.Signals): Promise<void>;
  /**
   * Start the server again on the same port with the same arguments and data directory, and wait
   * until it answers. A server still running is first shut down as by `stop()` (but its data
   * directory is kept). Works after `stop()` too, though a private temporary directory then
   * starts empty. Throws like {@link startRedisServer}, e.g. when the port has been taken.
   */
  restart(): Promise<void>;
  /** The last lines (at most 50) the current child printed, oldest first; for diagnostics. */
  recentOutput(): readonly string[];
}
