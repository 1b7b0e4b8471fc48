/**
 * A `redis-server` child process, owned by this Node process.
 *
 * Two users share this module: the server, which runs an embedded Redis when `REDIS_URL` is unset
 * (DESIGN.md §6), and the test harness (`test/support/redis.ts`), which gives every test file a
 * fresh Redis it may stop, SIGKILL, freeze and restart for real: failure paths are tested by
 * failing, never by mocks.
 *
 * What it guarantees:
 * - Redis listens on loopback only (`--bind 127.0.0.1`), on a free port unless one is given.
 * - `startRedisServer` resolves only once *this* child answers on that port (its `INFO server`
 *   `process_id` is checked, so another process that grabbed the port can never pass for it), and
 *   rejects with the exit status and the last lines Redis printed when it fails.
 * - The child never outlives this process: a process `'exit'` hook SIGKILLs every live child,
 *   and on Linux the child is started through util-linux `setpriv --pdeathsig KILL`, so the kernel
 *   kills it even when this process dies by SIGKILL or a crash, where no hook runs.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import getPort from 'get-port';
import { findRedisServer, RedisServerNotFoundError } from './binary.js';
import { ownedDirs, syncExitHook } from './children.js';
import { HOST } from './constants.js';
import { type LaunchSpec, launch } from './launch.js';
import { ManagedRedisProcess } from './managed.js';
import { RedisStartError, waitUntilReady } from './ready.js';
import type { RedisProcess, StartRedisServerOptions } from './types.js';

export { findRedisServer, RedisServerNotFoundError } from './binary.js';
export { TERMINATING_SIGNALS } from './managed.js';
export { RedisStartError } from './ready.js';
export type { RedisProcess, RedisProcessLogger, StartRedisServerOptions } from './types.js';

const DEFAULT_READY_TIMEOUT_MS = 10_000;
/** Bounded retries when a picked port is taken between get-port's check and Redis' bind. */
const PORT_ATTEMPTS = 5;
/** Port of the shared Redis that may already run on this machine: never ours to use. */
const RESERVED_PORT = 6379;

/**
 * Spawn `redis-server` on a loopback port and wait until it answers.
 *
 * Command line: `--bind 127.0.0.1 --port <port> --save "" --daemonize no
 * --maxmemory-policy noeviction`, then `--appendonly yes|no --dir <dir>`,
 * `--notify-keyspace-events <flags>` when given, and `extraArgs` last. RDB snapshots are off
 * (`--save ""`): the only persistence is the append-only file, and only when asked for.
 * `noeviction` is Redis' default, written out so that no build or packaging that changes the
 * default can make Redis drop Ringmaster's keys (the server's /ready would refuse it anyway).
 *
 * @returns a {@link RedisProcess} whose child answers on `url`.
 * @throws {RedisServerNotFoundError} when no binary is given and none is on `searchPath`.
 * @throws {RedisStartError} when Redis exits before it is ready (bad argument, port in use, ...)
 *   or does not answer within `readyTimeoutMs`; the message holds the command line, the exit
 *   status and Redis' last output lines. The failed child is reaped before this is thrown.
 */
export async function startRedisServer(
  options: StartRedisServerOptions = {},
): Promise<RedisProcess> {
  const searchPath = options.searchPath ?? process.env.PATH ?? '';
  const binary = options.binary ?? findRedisServer(searchPath);
  if (binary === null) throw new RedisServerNotFoundError(searchPath);

  const appendOnly = options.appendOnly ?? options.dataDir !== undefined;
  let dataDir: string | null = null;
  let ownedDir = false;
  if (options.dataDir !== undefined) {
    // Absolute, so logs say exactly where the data is, whatever the working directory.
    dataDir = path.resolve(options.dataDir);
    await mkdir(dataDir, { recursive: true });
  } else if (appendOnly) {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'ringmaster-redis-'));
    ownedDir = true;
    ownedDirs.add(dataDir);
    syncExitHook();
  }

  const persistence = [
    '--appendonly',
    appendOnly ? 'yes' : 'no',
    // Without a data directory, point --dir at the OS temp dir, so a stray SAVE or a replication
    // snapshot never drops a dump.rdb into whatever directory the process runs in.
    '--dir',
    dataDir ?? os.tmpdir(),
    // Redis loads `<dir>/<dbfilename>` at start: in the shared temp dir, a name of this server's
    // own, so a dump.rdb another process left there is never loaded into it.
    ...(dataDir === null ? ['--dbfilename', `ringmaster-${process.pid}-${randomUUID()}.rdb`] : []),
  ];
  const events =
    options.notifyKeyspaceEvents === undefined
      ? []
      : ['--notify-keyspace-events', options.notifyKeyspaceEvents];
  const readyTimeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const logger = options.logger;

  const attempts = options.port === undefined ? PORT_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await getPort({ host: HOST, exclude: [RESERVED_PORT] }));
    const spec: LaunchSpec = {
      binary,
      port,
      cwd: dataDir ?? os.tmpdir(),
      logger,
      args: [
        '--bind',
        HOST,
        '--port',
        String(port),
        '--save',
        '',
        '--daemonize',
        'no',
        '--maxmemory-policy',
        'noeviction',
        ...persistence,
        ...events,
        ...(options.extraArgs ?? []),
      ],
    };
    const current = launch(spec);
    try {
      await waitUntilReady(current, spec, readyTimeoutMs);
    } catch (err) {
      if (err instanceof RedisStartError && err.addressInUse && attempt < attempts) {
        logger?.warn(
          { component: 'redis-server', port },
          'port taken before Redis bound it; retrying on another',
        );
        continue;
      }
      if (ownedDir && dataDir !== null) {
        await rm(dataDir, { recursive: true, force: true });
        ownedDirs.delete(dataDir);
        syncExitHook();
      }
      throw err;
    }
    logger?.info(
      { component: 'redis-server', pid: current.pid, port, dataDir, appendOnly },
      'redis-server ready',
    );
    return new ManagedRedisProcess(spec, current, dataDir, ownedDir, readyTimeoutMs);
  }
}
