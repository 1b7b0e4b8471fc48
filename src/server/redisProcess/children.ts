/**
 * Children that must die with us. The 'exit' hook is installed only while there is something for
 * it to do, so a process that has stopped all its servers carries no listener at all.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

export const liveChildren = new Set<ChildProcess>();
/** Private temporary data directories, deleted at exit if `stop()` never ran. */
export const ownedDirs = new Set<string>();

function onProcessExit(): void {
  // 'exit' handlers must be synchronous: signal and delete, but never wait.
  for (const child of liveChildren) {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone: nothing to do.
    }
  }
  for (const dir of ownedDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Best effort: a leftover directory in the OS temp dir is harmless.
    }
  }
}

let exitHookInstalled = false;
export function syncExitHook(): void {
  const needed = liveChildren.size > 0 || ownedDirs.size > 0;
  if (needed && !exitHookInstalled) process.on('exit', onProcessExit);
  if (!needed && exitHookInstalled) process.off('exit', onProcessExit);
  exitHookInstalled = needed;
}
