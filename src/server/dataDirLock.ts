/**
 * One server per DATA_DIR: the embedded redis-server of two servers pointed at one directory
 * would append to one file and lose jobs on the next start. A pid file taken with an exclusive
 * create guards it; a file left by a process that is gone (a crash, SIGKILL) is taken over.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

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
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(readFileSync(file, 'utf8'), 10);
      if (Number.isInteger(holder) && holder !== process.pid && alive(holder)) {
        throw new DataDirInUseError(
          `DATA_DIR ${dataDir} is in use by another Ringmaster server (pid ${holder}); ` +
            'give this one its own DATA_DIR, or point both at one Redis with REDIS_URL',
        );
      }
      rmSync(file, { force: true }); // left by a process that is gone
    }
  }
  throw new DataDirInUseError(`DATA_DIR ${dataDir}: could not take ${LOCK_FILE}`);
}
