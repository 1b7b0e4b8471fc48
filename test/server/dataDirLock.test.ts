/**
 * One server per DATA_DIR (src/server/dataDirLock.ts): a live holder refuses a second server,
 * a holder that is gone (crashed, SIGKILLed) is taken over, and releasing frees it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirInUseError, lockDataDir } from '../../src/server/dataDirLock.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** A live process that is not this one. */
function otherProcess(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], {
    stdio: 'ignore',
  });
  children.push(child);
  return child;
}

const freshDir = () => path.join(mkdtempSync(path.join(tmpdir(), 'rm-lock-')), 'data');

describe('DATA_DIR lock', () => {
  it('takes a new directory, and releasing it frees it', () => {
    const dir = freshDir();
    const release = lockDataDir(dir);
    const file = path.join(dir, 'ringmaster.pid');
    expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
    release();
    expect(existsSync(file)).toBe(false);
    lockDataDir(dir)();
  });

  it('refuses a directory a live server holds, naming its pid', () => {
    const dir = freshDir();
    lockDataDir(dir)();
    const holder = otherProcess();
    writeFileSync(path.join(dir, 'ringmaster.pid'), `${holder.pid}\n`);
    expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
    expect(() => lockDataDir(dir)).toThrow(`pid ${holder.pid}`);
  });

  it('takes over a directory whose holder is gone', async () => {
    const dir = freshDir();
    lockDataDir(dir)();
    const holder = otherProcess();
    writeFileSync(path.join(dir, 'ringmaster.pid'), `${holder.pid}\n`);
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
    const release = lockDataDir(dir);
    expect(readFileSync(path.join(dir, 'ringmaster.pid'), 'utf8').trim()).toBe(String(process.pid));
    release();
  });
});
