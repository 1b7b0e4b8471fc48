/**
 * One server per DATA_DIR: the embedded redis-server of two servers pointed at one directory
 * would append to one file and lose jobs on the next start. A pid file taken with an exclusive
 * create guards it; a file left by a process that is gone (a crash, SIGKILL) is taken over.
 *
 * A DATA_DIR the server cannot use (a file, a read-only mount, /proc, a directory it may not
 * write) is refused with a {@link StartupError} saying which and why, never a raw errno.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { StartupError } from './startupError.js';

const LOCK_FILE = 'ringmaster.pid';

export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Take `dataDir` for this process (created if missing). Returns the release function.
 * @throws DataDirInUseError when a live process holds it, naming its pid
 */
export function lockDataDir(dataDir: string): () => void {
  ensureDirectory(dataDir, dataDir);
  const file = path.join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new StartupError('DATA_DIR', dataDir, `cannot create files in it: ${why(error)}`);
      }
      const holder = Number.parseInt(readFileSync(file, 'utf8'), 10);
      if (Number.isInteger(holder) && holder !== process.pid && alive(holder)) {
        throw new DataDirInUseError(
          `DATA_DIR ${dataDir} is in use by another Ringmaster server (pid ${holder}); ` +
            'give this one its own DATA_DIR, or point both at one Redis with REDIS_URL',
        );
      }
      rmSync(file, { force: true }); // left by a process that is gone
      continue;
    }
    return () => {
      try {
        if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file);
      } catch {
        // Already gone: nothing to release.
      }
    };
  }
  throw new DataDirInUseError(`DATA_DIR ${dataDir}: could not take ${LOCK_FILE}`);
}

/**
 * Make `dir` exist as a directory, creating missing parents one at a time. Not
 * `mkdirSync(…, { recursive: true })`: under /proc it loops for ever on Node 20 (mkdir answers
 * ENOENT there although the parent exists, and the recursion retries the parent).
 * @throws StartupError for DATA_DIR `dataDir` when `dir` is not, and cannot be made, a directory
 */
function ensureDirectory(dir: string, dataDir: string): void {
  try {
    if (statSync(dir).isDirectory()) return;
    throw new StartupError(
      'DATA_DIR',
      dataDir,
      dir === dataDir ? 'is a file, not a directory' : `${dir} is a file, not a directory`,
    );
  } catch (error) {
    if (error instanceof StartupError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') {
      throw new StartupError('DATA_DIR', dataDir, 'a part of the path is a file, not a directory');
    }
    if (code !== 'ENOENT')
      throw new StartupError('DATA_DIR', dataDir, `cannot be read: ${why(error)}`);
  }
  const parent = path.dirname(dir);
  if (parent !== dir) ensureDirectory(parent, dataDir);
  try {
    mkdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST' && statSync(dir).isDirectory()) return;
    throw new StartupError('DATA_DIR', dataDir, `cannot be created: ${why(error)}`);
  }
}

/** What an errno means for a directory an operator chose, and the code to search for. */
function why(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const refused = 'the file system refuses it, a special one such as /proc or /sys?';
  const meaning: Record<string, string> = {
    EROFS: 'a read-only file system',
    EACCES: `permission denied to this process (uid ${process.getuid?.() ?? '?'})`,
    EPERM: refused,
    ENOENT: refused,
    ENOSPC: 'no space left on the device',
    EDQUOT: 'disk quota exceeded',
    ENAMETOOLONG: 'the path is too long',
    ELOOP: 'too many symbolic links',
  };
  return `${(code && meaning[code]) ?? (error as Error).message}${code ? ` (${code})` : ''}`;
}
