/** Finding the binaries this module runs: `redis-server`, and `setpriv` on Linux. */
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import path from 'node:path';

/** Thrown by {@link startRedisServer} when no `redis-server` binary can be found. */
export class RedisServerNotFoundError extends Error {
  readonly code = 'REDIS_SERVER_NOT_FOUND';
  constructor(searched: string) {
    super(
      'redis-server was not found on PATH' +
        (searched === '' ? ' (PATH is empty)' : ` (searched: ${searched})`) +
        '. Install it — `apt-get install redis-server` on Debian/Ubuntu, `brew install redis` ' +
        'on macOS — or set REDIS_URL to use a Redis that is already running.',
    );
    this.name = 'RedisServerNotFoundError';
  }
}

/**
 * Find an executable named `name` in a PATH-style list of directories.
 * Empty entries (which POSIX reads as the current directory) are skipped on purpose: a binary
 * must never be picked up from wherever the process happens to run.
 */
function findExecutable(name: string, searchPath: string): string | null {
  const fileNames = process.platform === 'win32' ? [`${name}.exe`, name] : [name];
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue;
    for (const fileName of fileNames) {
      const candidate = path.resolve(dir, fileName);
      try {
        if (!statSync(candidate).isFile()) continue;
        accessSync(candidate, fsConstants.X_OK);
        return candidate;
      } catch {
        // Missing or not executable: try the next directory, as a shell would.
      }
    }
  }
  return null;
}

/**
 * The absolute path of the `redis-server` binary on `searchPath`, or null if there is none.
 *
 * @param searchPath a PATH-style list (`path.delimiter`-separated); default `process.env.PATH`.
 *   Tests pass `''` to see the missing-binary path without touching the real environment.
 */
export function findRedisServer(searchPath: string = process.env.PATH ?? ''): string | null {
  return findExecutable('redis-server', searchPath);
}

/** `setpriv` (util-linux, always present on Debian) or null; looked up once. */
let setprivPath: string | null | undefined;
export function findSetpriv(): string | null {
  if (setprivPath === undefined) {
    setprivPath =
      process.platform === 'linux'
        ? findExecutable('setpriv', `${process.env.PATH ?? ''}${path.delimiter}/usr/bin:/bin`)
        : null;
  }
  return setprivPath;
}
