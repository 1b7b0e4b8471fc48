/**
 * Every script in src/lua loads into a real Redis: SCRIPT LOAD compiles it, so a Lua syntax
 * error, or an include that did not inline, fails here rather than on first use.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  functionFlag,
  LIBRARY,
  scriptNames,
  scriptSource,
} from '../../src/lanes/scripts/commands.js';
import {
  BUILT_QUEUES_KEPT,
  dropUnusedFunctions,
  functionFactory,
  functionLibrary,
  LUA_DIR,
  loadScripts,
  stripComments,
} from '../../src/lanes/scripts/lua.js';
import { useEngine } from '../support/lanes.js';

const engine = useEngine();

const EXPECTED = [
  // a line of a running job's log, under its lease
  'addJobLog',
  // timed overrides reverted at their deadline, by the reaper
  'applyOverrides',
  // a pending timed override dropped, its value kept
  'cancelOverride',
  // the queue's identity, for noticing a Redis that lost its state
  // a pending or delayed job's new priority, an operator's action
  'changeJobPriority',
  'checkEpoch',
  'checkLayout',
  'claim',
  'clearLimit',
  // per-group rate limits
  'clearRateLimit',
  'complete',
  // a worker's completions + claims in one round trip
  'completeAndClaim',
  // the schedules due by the Redis clock, and their ticks fired by compare-and-set
  'dueSchedules',
  'enqueue',
  // many jobs in one atomic call, each as enqueue (the producer's side)
  'enqueueMany',
  'extendLease',
  // idle, unset groups forgotten after their grace, by the reaper
  'fireSchedules',
  'forgetGroups',
  'pause',
  // the queue's own pause: claims stop for every group, the rota untouched
  'pauseQueue',
  // a delayed job to its lane now, an operator's action
  'promoteJob',
  // the worker registry (DESIGN.md §4.9): lapsed workers forgotten by the reaper's pass
  'pruneWorkers',
  // a queue's totals of one instant, without jobs past their retention age
  'readCounts',
  // the state of a page of groups in one round trip (reads' client cost)
  'readGroups',
  // one job, gone once past its retention age (Queue.job)
  'readJob',
  // a page of a job's log, oldest first (Queue.jobLogs)
  'readJobLogs',
  // a cursor-paged page of jobs of one state (Queue.jobs)
  'readJobs',
  // one queue's numbers for GET /metrics, with the oldest pending job
  'readMetrics',
  // one moment of a queue for Queue.snapshot (the console's panels agree)
  // a page of a queue's schedules (Queue.schedules)
  'readSchedules',
  'readSnapshot',
  // a queue's events per minute, the last minutes of the day kept (Queue.throughput)
  'readThroughput',
  // the first groups of a ranking, for Queue.topGroups and the per-group metrics
  'readTopGroups',
  // the live workers, a client's leases counted
  'readWorkers',
  'reap',
  // the reaper's per-queue lock, held for one pass, and its release
  'reaperLock',
  'reaperUnlock',
  // Queue.audit / Queue.repair: the rate limits' token buckets
  'reconcileBuckets',
  // the queue's "next due at" against `delayed` and `ratelimited`
  'reconcileDue',
  // Queue.audit / Queue.repair; I4's paired job indexes
  'reconcileGroups',
  'reconcileIndexes',
  'reconcileLeases',
  // the timed-override keys (I6)
  'reconcileOverrides',
  // the stored sum of the reserves (I8)
  'reconcileReserves',
  // the schedules' three keys, their next ticks mended by compare-and-set
  'reconcileSchedules',
  // the queue registry's SADD for steering calls, allowed at maxmemory
  'register',
  // operator actions
  'removeJobs',
  // a schedule removed (Queue.removeSchedule)
  'removeSchedule',
  'requeueDead',
  'resume',
  'resumeQueue',
  'retry',
  'setDefaultMaxPending',
  'setLimit',
  // a group's backlog bound (setDefaultMaxPending above: the queue's default)
  'setMaxPending',
  // the queue's cap (set, timed, cleared) and a group's reserve of it
  'setQueueLimit',
  'setRateLimit',
  'setReserve',
  // a queue's retention of completed and dead jobs
  'setRetention',
  // a group's turns per round of the ring (weights)
  'setWeight',
  // a running job's progress, under its lease
  'updateJobProgress',
  // one bounded step of converting a queue of the job layout before, in place
  'upgradeLayout',
  // a schedule created or replaced (Queue.upsertSchedule)
  'upsertSchedule',
  // the live feed's registrations of the jobs it watches (jobChanged is exact)
  'watchJobs',
  // a worker's heartbeat, and its leaving at close
  'workerBeat',
  'workerGone',
];

describe('scripts', () => {
  it('every script of DESIGN.md §3 is there, one file each, named <name>-<numberOfKeys>.lua', () => {
    expect([...scriptNames].sort()).toEqual(EXPECTED);
    const files = readdirSync(LUA_DIR).filter((f) => f.endsWith('.lua'));
    expect(files).toHaveLength(EXPECTED.length);
    for (const script of loadScripts()) {
      // The file as written: its header names every key, the code may not use the last.
      const file = readFileSync(`${LUA_DIR}${script.name}-${script.numberOfKeys}.lua`, 'utf8');
      const header = file.match(/KEYS\[(\d+)\]/g) ?? [];
      const highest = Math.max(0, ...header.map((k) => Number(k.slice(5, -1))));
      expect(highest, `${script.name}: highest KEYS index vs file name`).toBe(script.numberOfKeys);
      // A queue script's own key beside the slot guard: the guard alone, one declared key, would
      // be sent on by ASK and run on a node importing the slot half moved (DESIGN.md §3).
      if (script.name !== 'register') {
        expect(script.numberOfKeys, `${script.name}: keys of its own`).toBeGreaterThan(0);
      }
    }
  });

  it('every include is inlined, once', () => {
    for (const name of scriptNames) {
      const lua = scriptSource(name);
      expect(lua, name).not.toMatch(/@include/);
      for (const fn of lua.matchAll(/^local function (\w+)/gm)) {
        const defs = lua.match(new RegExp(`^local function ${fn[1]}\\b`, 'gm')) ?? [];
        expect(defs, `${name}: ${fn[1]} defined once`).toHaveLength(1);
      }
    }
  });

  it('every function a script calls is a Lua builtin or defined in it (no include missing)', () => {
    // SCRIPT LOAD compiles but does not resolve names: a call to a helper whose include is
    // missing would only fail when that line runs. Checked statically here.
    const builtins = new Set([
      'tonumber',
      'tostring',
      'type',
      'ipairs',
      'pairs',
      'select',
      'unpack',
      'error',
      'assert',
      'pcall',
      'next',
    ]);
    const keywords = new Set([
      'if',
      'elseif',
      'while',
      'until',
      'return',
      'and',
      'or',
      'not',
      'function',
    ]);
    for (const name of scriptNames) {
      const code = scriptSource(name)
        .replace(/--\[\[[\s\S]*?\]\]/g, '')
        .replace(/--[^\n]*/g, '')
        .replace(/'(?:[^'\\]|\\.)*'/g, "''");
      const defined = new Set([...code.matchAll(/local function (\w+)/g)].map((m) => m[1]));
      for (const call of code.matchAll(/(?<![.:\w])([A-Za-z_]\w*)\s*\(/g)) {
        const fn = call[1] as string;
        if (builtins.has(fn) || keywords.has(fn) || defined.has(fn)) continue;
        throw new Error(`${name}: calls ${fn}(), which is neither a builtin nor defined`);
      }
    }
  });

  it.each(EXPECTED)('%s compiles in Redis (SCRIPT LOAD)', async (name) => {
    const source = scriptSource(name);
    const sha = (await engine.redis().script('LOAD', source)) as string;
    expect(sha).toBe(createHash('sha1').update(source).digest('hex'));
    expect(await engine.redis().script('EXISTS', sha)).toEqual([1]);
  });

  it('a script that does not compile is refused by SCRIPT LOAD (so the tests above can fail)', async () => {
    await expect(engine.redis().script('LOAD', 'local x = (')).rejects.toThrow(
      /compil|syntax|Error/i,
    );
  });

  it('Redis gets the scripts without their comments; code, strings with -- and all, is kept', async () => {
    const lua = [
      '--[[',
      '  the why, for the reader',
      ']]',
      "local sep = '--' -- a comment after code is kept (the -- could be in a string)",
      '  -- an indented comment line',
      '',
      '--[==[ a level-2 block ]] still in it ]==]',
      'return sep',
    ].join('\n');
    const stripped = stripComments(lua);
    expect(stripped).toBe(
      "local sep = '--' -- a comment after code is kept (the -- could be in a string)\nreturn sep\n",
    );
    expect(await engine.redis().eval(stripped, 0)).toBe('--');
    for (const script of loadScripts()) {
      expect(script.lua, script.name).not.toMatch(/^\s*--/m);
      expect(script.lua, script.name).not.toMatch(/^\s*$\n/m);
    }
  });

  it('Redis gets a script without the top-level functions it never calls, directly or through another', async () => {
    const lua = [
      'local function unused(x)',
      '  return helper(x)',
      'end',
      'local function helper(x)',
      '  return x + 1',
      'end',
      'local function viaHelper(x)',
      '  return helper(x) * 2',
      'end',
      'local function selfOnly(n)',
      '  return selfOnly(n - 1)',
      'end',
      'local function named(x)',
      '  return x',
      'end',
      "local label = 'named in a string'",
      'return { viaHelper(1), label }',
      '',
    ].join('\n');
    const shaken = dropUnusedFunctions(lua);
    const kept = [...shaken.matchAll(/^local function (\w+)/gm)].map((m) => m[1]);
    // a name in a string counts as a use: a helper is only ever kept by mistake, never dropped
    expect(kept).toEqual(['helper', 'viaHelper', 'named']);
    expect(await engine.redis().eval(shaken, 0)).toEqual([4, 'named in a string']);
  });

  it('a script whose top-level functions are not laid out as the includes write them is left whole', () => {
    const odd = ['local function f(x)', 'return x', 'end', 'return 1', ''].join('\n');
    expect(dropUnusedFunctions(odd)).toBe(odd);
    const unclosed = ['local function f(x)', '  return x', 'return 1', ''].join('\n');
    expect(dropUnusedFunctions(unclosed)).toBe(unclosed);
  });

  it('every script is loaded without the functions it does not reach, and they were many', () => {
    let defined = 0;
    let kept = 0;
    for (const script of loadScripts()) {
      // the loaded text is already as small as it gets: nothing left to drop
      expect(dropUnusedFunctions(script.lua), script.name).toBe(script.lua);
      // and the loader did not leave it whole: every function it kept is named again in it
      for (const [, name] of script.lua.matchAll(/^local function (\w+)\(/gm)) {
        const uses = script.lua.match(new RegExp(`\\b${name}\\b`, 'g')) ?? [];
        expect(uses.length, `${script.name}: ${name}`).toBeGreaterThan(1);
      }
      const source = readFileSync(`${LUA_DIR}${script.name}-${script.numberOfKeys}.lua`, 'utf8');
      kept += (script.lua.match(/^local function /gm) ?? []).length;
      defined += includesDefined(source);
    }
    // about half of what the includes define is reached by the scripts that include them
    expect(kept).toBeLessThan(defined * 0.75);
  });

  it('the loader fails on an include that does not exist', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ringmaster-lua-'));
    try {
      await writeFile(path.join(dir, 'broken-1.lua'), '--- @include "nope"\nreturn 1\n');
      expect(() => loadScripts(`${dir}/`)).toThrow(/nope/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the function library (Redis 7.0 and newer)', () => {
  it('holds every script as a function with its flag, and loads into Redis (FUNCTION LOAD)', async () => {
    const r = engine.redis();
    await r.call('FUNCTION', 'FLUSH');
    expect(await r.call('FUNCTION', 'LOAD', LIBRARY.code)).toBe(LIBRARY.name);
    // The same text again, REPLACE: nothing changes, nothing refused.
    expect(await r.call('FUNCTION', 'LOAD', 'REPLACE', LIBRARY.code)).toBe(LIBRARY.name);
    const [library] = (await r.call(
      'FUNCTION',
      'LIST',
      'LIBRARYNAME',
      LIBRARY.name,
    )) as unknown[][];
    const functions = ((library?.[5] ?? []) as unknown[][]).map((f) => [f[1], f[5]]);
    expect(functions.sort()).toEqual(
      EXPECTED.map((name) => {
        const flag = functionFlag(name);
        return [`${LIBRARY.functionPrefix}${name}`, flag === 'none' ? [] : [flag]];
      }),
    );
    expect(functionFlag('enqueue')).toBe('none');
    expect(functionFlag('readJobs')).toBe('no-writes');
    expect(functionFlag('setLimit')).toBe('allow-oom');
  });

  it('starts every call from the state an EVAL would: top-level locals set again but constants, statements in order', async () => {
    const lua = [
      'local memo',
      'local count = 0',
      // A constant (made once at load), and an UPPER_SNAKE local that is not one (assigned).
      'local STEP = {',
      '  by = 10,',
      '}',
      'local TOTAL = 0',
      'local function bump()',
      '  count = count + 1',
      '  memo = (memo or 0) + STEP.by',
      '  TOTAL = TOTAL + 1',
      '  return count',
      'end',
      "if ARGV[1] == 'early' then return 'early' end",
      'local function read()',
      '  return { count, memo, TOTAL, KEYS[1], ARGV[1] }',
      'end',
      'bump()',
      'return read()',
      '',
    ].join('\n');
    const factory = functionFactory(lua);
    const [once, each] = factory.split('return function(keys, args)') as [string, string];
    expect(once).toContain('local STEP = {\n  by = 10,\n}\n');
    expect(each).not.toContain('STEP =');
    expect(each).toContain('TOTAL = 0');
    const library = functionLibrary([{ name: 'toy', numberOfKeys: 1, lua }], () => 'none');
    const r = engine.redis();
    await r.call('FUNCTION', 'LOAD', 'REPLACE', library.code);
    const toy = `${library.functionPrefix}toy`;
    for (const arg of ['a', 'b']) {
      expect(await r.call('FCALL', toy, 1, 'k', arg)).toEqual([1, 10, 1, 'k', arg]);
    }
    expect(await r.call('FCALL', toy, 1, 'k', 'early')).toBe('early');
    expect(await r.eval(lua, 1, 'k', 'a')).toEqual([1, 10, 1, 'k', 'a']);
    // A library of other text is another library, with other function names.
    expect(library.name).not.toBe(LIBRARY.name);
    await r.call('FUNCTION', 'DELETE', library.name);
  });

  it("keeps the keys and key records a builder makes of a queue's base across calls, per queue, forgetting them past BUILT_QUEUES_KEPT", async () => {
    const lua = [
      'local function statsKeyOf(base)',
      "  return base .. 'stats'",
      'end',
      'local function queueKeyOf(base, name)',
      '  return base .. name',
      'end',
      'local function toyKeysOf(base)',
      '  return {',
      "    ring = queueKeyOf(base, 'ring'),",
      '  }',
      'end',
      'local function laneOf(base, group)',
      "  return base .. 'g:' .. group",
      'end',
      'local k = toyKeysOf(ARGV[1])',
      // What a call adds to the record, the next call of the queue finds.
      'local calls = k.calls or 0',
      'k.calls = calls + 1',
      'return { statsKeyOf(ARGV[1]), statsKeyOf(ARGV[1]), k.ring, laneOf(ARGV[1], ARGV[2]), calls }',
      '',
    ].join('\n');
    const [once] = functionFactory(lua).split('return function(keys, args)') as [string];
    expect(once).toContain("keys['stats'] = key");
    expect(once).toContain('keys[name] = key');
    expect(once).toContain("keys['\\0toyKeysOf'] = record");
    expect(once).toContain("  return base .. 'g:' .. group\n");
    const library = functionLibrary([{ name: 'keyed', numberOfKeys: 0, lua }], () => 'none');
    const r = engine.redis();
    await r.call('FUNCTION', 'LOAD', 'REPLACE', library.code);
    const keyed = `${library.functionPrefix}keyed`;
    const call = (base: string) => r.call('FCALL', keyed, 0, base, 'a');
    const reply = (base: string, calls: number) => [
      `${base}stats`,
      `${base}stats`,
      `${base}ring`,
      `${base}g:a`,
      calls,
    ];
    expect(await call('P:{q}:')).toEqual(reply('P:{q}:', 0));
    expect(await call('P:{q}:')).toEqual(reply('P:{q}:', 1));
    for (let q = 0; q < BUILT_QUEUES_KEPT; q++) {
      expect(await call(`P:{q${q}}:`)).toEqual(reply(`P:{q${q}}:`, 0));
    }
    // The 65th queue: every queue's keys forgotten, built again.
    expect(await call('P:{q}:')).toEqual(reply('P:{q}:', 0));
    await r.call('FUNCTION', 'DELETE', library.name);
  });

  it('a script whose `k` is a kept record (claimKeysOf) adds to it only a key of the base', () => {
    const users = loadScripts().filter((script) => /\bclaimKeysOf\(/.test(script.lua));
    expect(users.map((script) => script.name).sort()).toEqual(['claim', 'completeAndClaim']);
    for (const script of users) {
      const writes = [...script.lua.matchAll(/\bk(\.[A-Za-z_]\w*|\[[^\]]*\])\s*=(?!=)/g)];
      expect(new Set(writes.map((w) => w[1])), script.name).toEqual(new Set(['.rateLimited']));
    }
  });

  it('refuses a top-level local declared twice before the last function, and a one-line function', () => {
    const fn = (name: string) => [`local function ${name}()`, '  return x', 'end'];
    const lua = ['local x = 1', ...fn('f'), 'local x = 2', ...fn('g'), 'return f() + g()'];
    expect(() => functionFactory(lua.join('\n'))).toThrow(/x is declared twice/);
    // A function on one line has no `end` line of its own: refused, not guessed at.
    expect(() => functionFactory('local function f() return 1 end\nreturn f()')).toThrow(/`end`/);
  });
});

/** Top-level functions a script and its includes define, each include counted once. */
function includesDefined(script: string): number {
  const seen = new Set<string>();
  const count = (text: string): number => {
    let n = (text.match(/^local function /gm) ?? []).length;
    for (const [, name] of text.matchAll(/^--- @include "([A-Za-z0-9_-]+)"/gm)) {
      if (seen.has(name as string)) continue;
      seen.add(name as string);
      n += count(readFileSync(`${LUA_DIR}includes/${name}.lua`, 'utf8'));
    }
    return n;
  };
  return count(script);
}
