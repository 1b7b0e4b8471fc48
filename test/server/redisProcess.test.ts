/**
 * src/server/redisProcess/ and test/support/redis.ts against real redis-server processes:
 * no mocks, no fixed sleeps. Waits are on events, or bounded polls (vi.waitFor).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Redis, type RedisOptions } from 'ioredis';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  findRedisServer,
  type RedisProcess,
  type RedisProcessLogger,
  RedisServerNotFoundError,
  RedisStartError,
  startRedisServer,
} from '../../src/server/redisProcess/index.js';
import {
  startTestRedis,
  TEST_DATABASE_MARKER,
  useTestRedis,
  usingExternalRedis,
} from '../support/redis.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const modulePath = path.join(repoRoot, 'src', 'server', 'redisProcess', 'index.ts');

/** Is `pid` a live process? A zombie (exited, not yet reaped by its new parent) counts as dead. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Format: "pid (comm) S ...": the state is the first field after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Resolves with the error code of a plain TCP connect to the port ('connected' if it worked). */
async function connectResult(port: number): Promise<string> {
  const socket = net.createConnection({ host: '127.0.0.1', port });
  try {
    await once(socket, 'connect');
    return 'connected';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  } finally {
    socket.destroy();
  }
}

/** Clients and servers a test opened, closed after it whatever happened. */
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function track(server: RedisProcess): RedisProcess {
  cleanups.push(() => server.stop());
  return server;
}

function connect(url: string, options: RedisOptions = {}): Redis {
  const client = new Redis(url, options);
  client.on('error', () => {});
  cleanups.push(() => client.disconnect());
  return client;
}

/** A logger that records what it is told, to check what the module reports. */
function recordingLogger(): RedisProcessLogger & {
  entries: Array<{ level: string; msg: string }>;
} {
  const entries: Array<{ level: string; msg: string }> = [];
  const at =
    (level: string) =>
    (_obj: object, msg?: string): void => {
      entries.push({ level, msg: msg ?? '' });
    };
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('findRedisServer', () => {
  it('finds the installed binary on PATH', () => {
    const binary = findRedisServer();
    expect(binary, 'redis-server must be installed to run these tests').not.toBeNull();
    expect(path.isAbsolute(binary as string)).toBe(true);
  });

  it('accepts only executable regular files, and nothing from an empty PATH', async () => {
    expect(findRedisServer('')).toBeNull();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ringmaster-find-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const asDirectory = path.join(dir, 'a');
    await mkdir(path.join(asDirectory, 'redis-server'), { recursive: true });
    const asFile = path.join(dir, 'b');
    await mkdir(asFile);
    const file = path.join(asFile, 'redis-server');
    await writeFile(file, '#!/bin/sh\n');
    await chmod(file, 0o644);
    const searchPath = [asDirectory, asFile].join(path.delimiter);
    expect(findRedisServer(searchPath)).toBeNull();
    await chmod(file, 0o755);
    expect(findRedisServer(searchPath)).toBe(file);
  });
});

describe('startRedisServer', () => {
  it('serves PING on a free loopback port, with the keyspace events asked for', async () => {
    // A real pino logger, to prove the logger interface fits it (pino adds an exit hook of its
    // own, so it is made before counting listeners).
    const logger = pino({ level: 'silent' });
    const exitListeners = process.listenerCount('exit');
    const server = track(await startRedisServer({ notifyKeyspaceEvents: 'KEA', logger }));
    expect(server.port).not.toBe(6379);
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    expect(isAlive(server.pid)).toBe(true);
    expect(server.exited).toBe(false);
    expect(server.dataDir).toBeNull();
    // The child is registered to be killed if this process exits before stopping it.
    expect(process.listenerCount('exit')).toBe(exitListeners + 1);

    const client = connect(server.url);
    expect(await client.ping()).toBe('PONG');
    const [, flags] = (await client.config('GET', 'notify-keyspace-events')) as string[];
    // Redis rewrites the flags in its own order ("AKE"); compare them as sets.
    expect(new Set(flags)).toEqual(new Set('KEA'));
    expect(await client.config('GET', 'bind')).toEqual(['bind', '127.0.0.1']);
    expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
    expect(await client.config('GET', 'save')).toEqual(['save', '']);
  });

  it('stop() shuts it down, reaps the child and removes the exit hook', async () => {
    const exitListeners = process.listenerCount('exit');
    const server = await startRedisServer();
    const { pid, port } = server;
    expect(process.listenerCount('exit')).toBe(exitListeners + 1);

    await server.stop();
    expect(server.exited).toBe(true);
    expect(isAlive(pid)).toBe(false);
    expect(await connectResult(port)).toBe('ECONNREFUSED');
    expect(process.listenerCount('exit')).toBe(exitListeners);
    await server.stop(); // idempotent
  });

  it('reports why it could not start: exit status, command line and Redis output', async () => {
    const logger = recordingLogger();
    const error = await startRedisServer({ extraArgs: ['--no-such-directive', 'x'], logger }).catch(
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(RedisStartError);
    const message = (error as Error).message;
    expect(message).toMatch(/exited with code 1 before it was ready/);
    expect(message).toContain('Command: ');
    expect(message).toContain('--no-such-directive');
    // noeviction is on the command line, not left to whatever default this Redis has.
    expect(message).toContain('--maxmemory-policy noeviction');
    expect(message).toMatch(/Bad directive/);
    // A failed start is an error for the caller, not a crash to log.
    expect(logger.entries.filter((entry) => entry.level === 'warn')).toEqual([]);
  });

  it('refuses a port that is taken, leaving the server that holds it alone', async () => {
    const first = track(await startRedisServer());
    const error = await startRedisServer({ port: first.port }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(RedisStartError);
    expect((error as RedisStartError).addressInUse).toBe(true);
    expect((error as Error).message).toMatch(/address already in use/i);
    expect(await connect(first.url).ping()).toBe('PONG');
  });

  it('says a cluster node whose bus port (port + 10000) is taken is refused for an address in use', async () => {
    // bench/clusterProcess.ts starts a node again on another pair of ports on this answer
    const holder = await startRedisServer();
    track(holder);
    if (holder.port < 11_000) return; // no node port 10000 below it
    const error = await startRedisServer({
      port: holder.port - 10_000,
      extraArgs: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'],
    }).catch((err: unknown) => err);
    if (!(error instanceof RedisStartError)) {
      track(error as Awaited<ReturnType<typeof startRedisServer>>);
      throw new Error(`a cluster node started though its bus port ${holder.port} was taken`);
    }
    expect(error.addressInUse).toBe(true);
    expect(error.message).toContain(`${holder.port}`);
  });

  it('says how to install Redis when there is no binary', async () => {
    const error = await startRedisServer({ searchPath: '' }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(RedisServerNotFoundError);
    const message = (error as Error).message;
    expect(message).toContain('apt-get install redis-server');
    expect(message).toContain('brew install redis');
    expect(message).toContain('REDIS_URL');
  });

  it('keeps acknowledged writes across SIGKILL and restart() with a data directory', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ringmaster-aof-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    // appendfsync always: a write is on disk before it is acknowledged, so SIGKILL loses nothing.
    const server = track(
      await startRedisServer({ dataDir, extraArgs: ['--appendfsync', 'always'] }),
    );
    expect(server.dataDir).toBe(dataDir);
    const client = connect(server.url);
    expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
    await client.set('survivor', 'still here');

    const { pid, port, url } = server;
    await server.kill('SIGKILL');
    expect(server.exited).toBe(true);
    expect(isAlive(pid)).toBe(false);
    await server.kill('SIGKILL'); // already dead: a no-op

    await server.restart();
    expect(server.exited).toBe(false);
    expect(server.pid).not.toBe(pid);
    expect(server.port).toBe(port);
    expect(server.url).toBe(url);
    // The same ioredis client reconnects by itself to the same address.
    expect(await client.get('survivor')).toBe('still here');

    // A graceful stop flushes the file too, and restart() works after stop().
    await client.set('second', 'also here');
    await server.stop();
    await server.restart();
    expect(await connect(server.url).mget('survivor', 'second')).toEqual([
      'still here',
      'also here',
    ]);
  });

  it('appendOnly without a data directory uses a private one that stop() deletes', async () => {
    const server = await startRedisServer({ appendOnly: true });
    const dir = server.dataDir as string;
    expect((await stat(dir)).isDirectory()).toBe(true);
    await server.stop();
    await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('without a data directory, never loads a dump.rdb another process left in the temp dir', async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'ringmaster-stray-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp; // os.tmpdir() reads it at each call
    try {
      // A stray snapshot in the temp dir, as a SAVE or a replication sync of another server leaves.
      const writer = track(await startRedisServer({ extraArgs: ['--dbfilename', 'dump.rdb'] }));
      const w = connect(writer.url);
      await w.set('stray', 'x');
      await w.save();
      w.disconnect();
      await writer.stop();
      expect((await stat(path.join(tmp, 'dump.rdb'))).size).toBeGreaterThan(0);

      const server = track(await startRedisServer());
      const client = connect(server.url);
      expect(await client.dbsize()).toBe(0);
      client.disconnect();
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await rm(tmp, { recursive: true, force: true });
    }
  });

  it('SIGSTOP freezes it, SIGCONT thaws it, and stop() still ends a frozen server at once', async () => {
    const server = track(await startRedisServer());
    const client = connect(server.url, { commandTimeout: 300, maxRetriesPerRequest: 0 });
    expect(await client.ping()).toBe('PONG');

    await server.kill('SIGSTOP');
    await expect(client.ping()).rejects.toThrow(/timed out/i);
    await server.kill('SIGCONT');
    await vi.waitFor(async () => expect(await client.ping()).toBe('PONG'), { timeout: 5_000 });

    await server.kill('SIGSTOP');
    const started = Date.now();
    await server.stop();
    // Well under the 5 s SIGTERM grace: stop() continued the process so it could shut down.
    expect(Date.now() - started).toBeLessThan(4_000);
    await expect(server.kill('SIGCONT')).rejects.toThrow(/not running/);
  });

  it('logs a crash it did not cause', async () => {
    const logger = recordingLogger();
    const server = track(await startRedisServer({ logger }));
    expect(logger.entries).toContainEqual({ level: 'info', msg: 'redis-server ready' });
    expect(logger.entries.some((entry) => entry.level === 'debug')).toBe(true); // Redis' output

    process.kill(server.pid, 'SIGKILL');
    await vi.waitFor(() => expect(server.exited).toBe(true), { timeout: 5_000 });
    expect(logger.entries).toContainEqual({
      level: 'warn',
      msg: 'redis-server was killed by SIGKILL unexpectedly',
    });
  });
});

describe('the child never outlives its parent', () => {
  /**
   * Run a Node process (through tsx, to load the TypeScript module) that starts a Redis and
   * prints its pid, then either exits normally or waits to be killed.
   */
  async function parentWithRedis(ending: 'exit' | 'wait'): Promise<{
    parent: ChildProcess;
    redisPid: number;
  }> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ringmaster-parent-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    // .mts: an ES module, where top-level await works.
    const script = path.join(dir, 'parent.mts');
    await writeFile(
      script,
      [
        `import { startRedisServer } from ${JSON.stringify(pathToFileURL(modulePath).href)};`,
        'const server = await startRedisServer();',
        'process.stdout.write(String(server.pid) + "\\n");',
        ending === 'exit' ? 'process.exit(0);' : 'setInterval(() => {}, 1_000);',
      ].join('\n'),
    );
    const parent = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => {
      if (parent.exitCode === null && parent.signalCode === null) parent.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    parent.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    parent.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    await vi.waitFor(
      () => {
        if (!stdout.includes('\n')) throw new Error(`no pid printed yet; stderr: ${stderr}`);
      },
      { timeout: 20_000, interval: 50 },
    );
    const redisPid = Number(stdout.split('\n')[0]);
    expect(redisPid).toBeGreaterThan(0);
    return { parent, redisPid };
  }

  it('a parent that exits takes its Redis with it', async () => {
    const { parent, redisPid } = await parentWithRedis('exit');
    if (parent.exitCode === null) await once(parent, 'exit');
    await vi.waitFor(() => expect(isAlive(redisPid)).toBe(false), { timeout: 5_000 });
  });

  it.runIf(process.platform === 'linux')(
    'a parent killed by SIGKILL takes its Redis with it (Linux: parent-death signal)',
    async () => {
      const { parent, redisPid } = await parentWithRedis('wait');
      expect(isAlive(redisPid)).toBe(true);
      parent.kill('SIGKILL');
      await once(parent, 'exit');
      await vi.waitFor(() => expect(isAlive(redisPid)).toBe(false), { timeout: 5_000 });
    },
  );
});

describe('test harness: useTestRedis', () => {
  const redis = useTestRedis();

  it('gives a working Redis whose keyspace notifications are on, and flush() empties it', async () => {
    const client = redis.client();
    const subscriber = redis.client();
    await subscriber.psubscribe('__keyspace@0__:harness:*');
    const message = once(subscriber, 'pmessage');
    await client.set('harness:key', 'v');
    const [, channel, event] = (await message) as [string, string, string];
    expect(channel).toBe('__keyspace@0__:harness:key');
    expect(event).toBe('set');

    expect(await client.dbsize()).toBeGreaterThan(0);
    await redis.redis.flush();
    expect(await client.keys('*')).toEqual(
      redis.redis.mode === 'external' ? [TEST_DATABASE_MARKER] : [],
    );
    // Closed now, while idle: the next test kills and restarts this Redis, and a subscriber
    // still open would re-send its PSUBSCRIBE on reconnect, a promise of ioredis' own that
    // rejects unhandled ("Connection is closed.") if the file ends before Redis answers it.
    subscriber.disconnect();
  });

  it('can be killed and restarted for real, on the same address', async () => {
    const testRedis = redis.redis;
    if (!testRedis.canControlProcess) {
      await expect(testRedis.kill('SIGKILL')).rejects.toThrow(/REDIS_URL/);
      return;
    }
    const client = redis.client({ maxRetriesPerRequest: 0 });
    expect(await client.ping()).toBe('PONG');
    await testRedis.kill('SIGKILL');
    await expect(client.ping()).rejects.toThrow();
    await testRedis.restart();
    await vi.waitFor(async () => expect(await client.ping()).toBe('PONG'), { timeout: 10_000 });
    expect(redis.url).toBe(testRedis.url);
  });
});

describe.skipIf(usingExternalRedis())('test harness: renameConfig', () => {
  const redis = useTestRedis({ renameConfig: true });

  it('refuses CONFIG, as a managed Redis does, and serves everything else', async () => {
    const client = redis.client();
    await expect(client.config('GET', 'notify-keyspace-events')).rejects.toThrow(
      /unknown command/i,
    );
    expect(await client.ping()).toBe('PONG');
  });
});

describe.skipIf(usingExternalRedis())('test harness: REDIS_URL', () => {
  /** Set REDIS_URL (and clear TEST_REDIS) for this test; both are put back afterwards. */
  function pointRedisUrlAt(url: string): void {
    const saved = { url: process.env.REDIS_URL, mode: process.env.TEST_REDIS };
    process.env.REDIS_URL = url;
    delete process.env.TEST_REDIS;
    cleanups.push(() => {
      if (saved.url === undefined) delete process.env.REDIS_URL;
      else process.env.REDIS_URL = saved.url;
      if (saved.mode !== undefined) process.env.TEST_REDIS = saved.mode;
    });
  }

  it('refuses a database holding keys the tests did not write, and leaves them alone', async () => {
    const server = track(await startRedisServer({}));
    const owner = connect(server.url);
    await owner.set('emq:{orders}:seq', '42');
    pointRedisUrlAt(server.url);
    await expect(startTestRedis()).rejects.toThrow(/holds 1 keys the tests did not write/);
    expect(await owner.keys('*')).toEqual(['emq:{orders}:seq']);
    // Another database of the same server, empty, is accepted and marked.
    pointRedisUrlAt(`${server.url}/15`);
    const external = await startTestRedis();
    cleanups.push(() => external.stop());
    await external.flush();
    expect(await owner.keys('*')).toEqual(['emq:{orders}:seq']);
    expect(await external.client().keys('*')).toEqual([TEST_DATABASE_MARKER]);
  });

  it('uses the given Redis, adds notification flags, and refuses to control it', async () => {
    const server = track(await startRedisServer({ notifyKeyspaceEvents: 'Kx' }));
    pointRedisUrlAt(server.url);

    expect(usingExternalRedis()).toBe(true);
    await expect(startTestRedis({ renameConfig: true })).rejects.toThrow(/usingExternalRedis/);
    const external = await startTestRedis();
    cleanups.push(() => external.stop());
    expect(external.mode).toBe('external');
    expect(external.url).toBe(server.url);
    expect(external.port).toBe(server.port);
    expect(external.canControlProcess).toBe(false);
    await expect(external.kill('SIGKILL')).rejects.toThrow(/canControlProcess/);
    await expect(external.restart()).rejects.toThrow(/REDIS_URL/);

    const client = external.client();
    const [, flags] = (await client.config('GET', 'notify-keyspace-events')) as string[];
    expect(new Set(flags)).toEqual(new Set('AKE')); // "Kx" plus KEA: x is part of A
    await client.set('k', 'v');
    await external.flush();
    expect(await client.keys('*')).toEqual([TEST_DATABASE_MARKER]);

    await external.stop();
    expect(await connect(server.url).ping()).toBe('PONG'); // still running: not ours to stop
    await expect(external.flush()).rejects.toThrow(/after stop/);
    expect(() => external.client()).toThrow(/after stop/);
  });
});
