/**
 * Loads the scripts of `src/lua`: one file per script, named `<name>-<numberOfKeys>.lua`, with
 * shared checks in `includes/` inlined wherever a line reads `--- @include "<name>"`.
 * Each include is inlined once per script, however many includes ask for it, so helpers can
 * include the helpers they depend on.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { LUA_DIR } from '../luaDir.js';

/** A script ready for ioredis `defineCommand`. */
export interface LuaScript {
  /** From the file name: `setLimit-8.lua` → `setLimit`. */
  readonly name: string;
  readonly numberOfKeys: number;
  /** The source with every include inlined, its comments and blank lines left out. */
  readonly lua: string;
}

export { LUA_DIR };

const INCLUDE = /^--- @include "([A-Za-z0-9_-]+)"\s*$/gm;
const SCRIPT_FILE = /^([A-Za-z]+)-(\d+)\.lua$/;

function inline(source: string, dir: string, seen: Set<string>): string {
  return source.replace(INCLUDE, (_line, name: string) => {
    if (seen.has(name)) return '';
    seen.add(name);
    const text = readFileSync(`${dir}includes/${name}.lua`, 'utf8');
    return inline(text, dir, seen);
  });
}

/** A comment block, `--[[ … ]]` or `--[==[ … ]==]`, from its start at the start of a line. */
const BLOCK_COMMENT = /^[ \t]*--\[(=*)\[[\s\S]*?\]\1\][ \t]*$/gm;
/** A line that is only a comment (a comment after code is kept: `--` may be inside a string). */
const LINE_COMMENT = /^[ \t]*--.*$/gm;

/**
 * The script as Redis gets it: without its comments (the why, for the reader of `src/lua`) and
 * blank lines. The scripts' comments are most of their text; every script, includes inlined,
 * is held by each engine and sent in full by an EVAL after a NOSCRIPT, and Redis keeps each in
 * its script cache. Inlining moves lines anyway, so an error's line number names no file line.
 */
export function stripComments(lua: string): string {
  return `${lua
    .replace(BLOCK_COMMENT, '')
    .replace(LINE_COMMENT, '')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .join('\n')}\n`;
}

/** The first line of a top-level function, as every include writes one. */
const TOP_FUNCTION = /^local function ([A-Za-z_][A-Za-z0-9_]*)\(/;
const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/g;

/**
 * The script without the top-level functions nothing in it calls. Redis runs a script's whole
 * text on every call, and a `local function` costs a closure each time it is passed (~500–900
 * instructions in Redis 7.0, more than a `redis.call` on a small key; docs/PERFORMANCE.md "Hot
 * spots", "What a script call costs before its first line"), so the helpers an include brings
 * and the script never reaches are cut: kept are the functions named in the script's own top-level
 * text and, transitively, in the functions kept. A name that appears anywhere counts as a use
 * (in a string too), so a helper is only ever kept by mistake, never dropped by one.
 *
 * The includes write a top-level function as `local function name(` at the start of a line and
 * its closing `end` alone at the start of a line, with every line between indented. A script
 * where that does not hold is returned unchanged.
 */
export function dropUnusedFunctions(lua: string): string {
  const lines = lua.split('\n');
  const blocks: { name: string; start: number; end: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const name = TOP_FUNCTION.exec(lines[i] as string)?.[1];
    if (name === undefined) continue;
    let end = i + 1;
    while (end < lines.length && lines[end] !== 'end') {
      if (!/^\s/.test(lines[end] as string)) return lua;
      end++;
    }
    if (end === lines.length) return lua;
    blocks.push({ name, start: i, end });
    i = end;
  }
  const byName = new Map(blocks.map((block) => [block.name, block]));
  const inBlock = new Set<number>();
  for (const block of blocks) for (let l = block.start; l <= block.end; l++) inBlock.add(l);
  const used = new Set<string>();
  const pending: string[] = [];
  const reach = (text: string) => {
    for (const [word] of text.matchAll(IDENTIFIER)) {
      if (byName.has(word) && !used.has(word)) {
        used.add(word);
        pending.push(word);
      }
    }
  };
  reach(lines.filter((_, l) => !inBlock.has(l)).join('\n'));
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    const block = byName.get(name) as (typeof blocks)[number];
    // The header's name is the function's own, not a use; its parameters and body are read.
    reach(
      `${(lines[block.start] as string).slice(`local function ${name}`.length)}\n${lines.slice(block.start + 1, block.end).join('\n')}`,
    );
  }
  const dropped = new Set<number>();
  for (const block of blocks) {
    if (used.has(block.name)) continue;
    for (let l = block.start; l <= block.end; l++) dropped.add(l);
  }
  return lines.filter((_, l) => !dropped.has(l)).join('\n');
}

/**
 * Read every script in `dir` (default {@link LUA_DIR}) with its includes inlined, its comments
 * and the functions it never calls left out (stripComments, dropUnusedFunctions).
 * Throws if an include is missing (ENOENT naming the file).
 */
export function loadScripts(dir: string = LUA_DIR): LuaScript[] {
  return readdirSync(dir)
    .map((file) => SCRIPT_FILE.exec(file))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([file, name, keys]) => ({
      name: name as string,
      numberOfKeys: Number(keys),
      lua: dropUnusedFunctions(
        stripComments(inline(readFileSync(`${dir}${file}`, 'utf8'), dir, new Set())),
      ),
    }));
}

/** How a script may run at maxmemory or on a replica, as a Redis Function flag (DESIGN.md §3). */
export type FunctionFlag = 'allow-oom' | 'no-writes' | 'none';

/** A line that starts no statement of its own: it closes or continues the one above. */
const CONTINUATION = /^(end\b|else\b|elseif\b|until\b|[})\]])/;
/** A top-level `local a, b = …` (or `local a`) line: its names and what follows `=`. */
const TOP_LOCAL =
  /^local ((?:[A-Za-z_][A-Za-z0-9_]*)(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*(?:=(.*))?$/;

/**
 * A script's text as a factory returning its function body: Redis runs a script's whole text on
 * every EVALSHA, making each top-level `local function` a closure again; a library's factory
 * makes them once, at FUNCTION LOAD. The top-level functions (up to the last one) stay in the
 * factory; every other top-level statement runs in the returned function, in its order, so each
 * call starts from the state an EVALSHA would: a top-level `local x = …` is declared in the
 * factory (its functions see it) and assigned at each call, a bare `local x` set to nil; a
 * constant (`isConstant`) is made once in the factory, with the functions, and a key builder of
 * the base alone keeps its keys across calls (`builtKey`). KEYS and ARGV are the factory's
 * locals, set first. Throws if a top-level local is declared twice
 * before the last function (one shared declaration would change which one a function sees), or
 * a top-level function has no `end` line of its own (as `dropUnusedFunctions` lays them out).
 */
export function functionFactory(lua: string): string {
  const lines = lua.replace(/\n$/, '').split('\n');
  /** The line of the `end` closing the top-level function that starts at `start`. */
  const endOf = (start: number): number => {
    const end = lines.indexOf('end', start + 1);
    if (end === -1) throw new Error(`top-level function at line ${start + 1} has no \`end\` line`);
    return end;
  };
  let last = -1;
  for (let i = 0; i < lines.length; i++) {
    if (!TOP_FUNCTION.test(lines[i] as string)) continue;
    last = endOf(i);
    i = last;
  }
  const factory: string[] = ['local KEYS, ARGV'];
  const call: string[] = ['KEYS, ARGV = keys, args'];
  const declared = new Set<string>();
  let memoized = false;
  for (let i = 0; i <= last; i++) {
    const line = lines[i] as string;
    if (TOP_FUNCTION.test(line)) {
      const end = endOf(i);
      const fn = lines.slice(i, end + 1);
      const built = end === i + 2 ? builtKey(fn) : builtRecord(fn);
      if (built === null) factory.push(...fn);
      else {
        memoized = true;
        factory.push(...built);
      }
      i = end;
      continue;
    }
    const local = /^\S/.test(line) && !CONTINUATION.test(line) ? TOP_LOCAL.exec(line) : null;
    if (local === null) {
      call.push(line);
      continue;
    }
    const names = local[1] as string;
    for (const name of names.split(/\s*,\s*/)) {
      if (declared.has(name)) throw new Error(`top-level local ${name} is declared twice`);
      declared.add(name);
    }
    let end = i;
    while (end < last && /^(\s|end\b|[})\]])/.test(lines[end + 1] as string)) end++;
    const statement = lines.slice(i, end + 1);
    if (isConstant(names, statement, lines)) {
      factory.push(...statement);
      i = end;
      continue;
    }
    factory.push(`local ${names}`);
    call.push(`${names} = ${local[2] === undefined ? 'nil' : local[2].trim()}`);
  }
  call.push(...lines.slice(last + 1));
  if (memoized) factory.splice(1, 0, ...BUILT_KEYS);
  return `${factory.join('\n')}\nreturn function(keys, args)\n${call.join('\n')}\nend`;
}

/** A line of a record of keys: `field = queueKeyOf(base, 'name'),` one or more times. */
const RECORD_FIELDS =
  /^\s+(?:[A-Za-z_][A-Za-z0-9_]* = queueKeyOf\(base, '[A-Za-z0-9:_-]+'\),?\s*)+$/;

/**
 * A top-level `local function name(base)` that returns a record of keys of the base alone
 * (`return {`, lines of `field = queueKeyOf(base, '<name>')`, `}`: includes/keys.lua
 * claimKeysOf), rewritten to make the record once per queue and keep it in the library beside
 * the keys (`BUILT_KEYS`, under `'\0' .. name`): every call of a script gets the same table, so
 * a script may add to it only what follows from the base (test/lua/scripts.test.ts checks the
 * scripts that use one). Null for any other function.
 */
function builtRecord(fn: string[]): string[] | null {
  const header = /^local function ([A-Za-z_][A-Za-z0-9_]*)\(base\)$/.exec(fn[0] as string);
  const fields = fn.slice(2, -2);
  if (
    header === null ||
    fn[1] !== '  return {' ||
    fn[fn.length - 2] !== '  }' ||
    fn[fn.length - 1] !== 'end' ||
    fields.length === 0 ||
    !fields.every((line) => RECORD_FIELDS.test(line))
  ) {
    return null;
  }
  return kept(fn[0] as string, `'\\0${header[1]}'`, 'record', [
    '    record = {',
    ...fields.map((line) => `  ${line}`),
    '    }',
  ]);
}

/**
 * A builder `header` rewritten to keep what it makes under `slot` of its queue's table in
 * `BUILT_KEYS`: `make`, lines that set `name`, runs only when the slot is empty.
 */
function kept(header: string, slot: string, name: string, make: string[]): string[] {
  return [
    header,
    '  local keys = BUILT_KEYS[base] or builtKeysOf(base)',
    `  local ${name} = keys[${slot}]`,
    `  if ${name} == nil then`,
    ...make,
    `    keys[${slot}] = ${name}`,
    '  end',
    `  return ${name}`,
    'end',
  ];
}

/** Queues whose built keys a library keeps (`BUILT_KEYS`): past them it forgets them all. */
export const BUILT_QUEUES_KEPT = 64;

/**
 * A library's memo of the keys its builders make from a queue's base (`builtKey`): base → the
 * queue's table, suffix → key, made once at load and kept across calls, all forgotten when a
 * {@link BUILT_QUEUES_KEPT}+1-th queue comes.
 */
const BUILT_KEYS = [
  'local BUILT_KEYS, BUILT_QUEUES = {}, 0',
  'local function builtKeysOf(base)',
  `  if BUILT_QUEUES >= ${BUILT_QUEUES_KEPT} then`,
  '    BUILT_KEYS, BUILT_QUEUES = {}, 0',
  '  end',
  '  local keys = {}',
  '  BUILT_KEYS[base] = keys',
  '  BUILT_QUEUES = BUILT_QUEUES + 1',
  '  return keys',
  'end',
];
/** A key builder of includes/keys.lua as a library can keep its keys: of `base` alone, a suffix. */
const KEY_OF_BASE = /^ {2}return base \.\. '([A-Za-z0-9:_-]+)'$/;

/**
 * A top-level function `local function name(base)` whose one line returns `base .. '<suffix>'`,
 * or `local function name(base, name)` returning `base .. name` (key builders of
 * includes/keys.lua), rewritten to build each key once per queue and keep
 * it in the library (`BUILT_KEYS`): a concatenation makes a new string each time (hashed and
 * interned, ~1,000–3,700 instructions in Redis 7.0), a kept key costs two table reads. The same
 * string either way; a script run by EVALSHA keeps the builder as written (no memo to make per
 * call). Null for any other function.
 */
function builtKey(fn: string[]): string[] | null {
  if (/^local function [A-Za-z_][A-Za-z0-9_]*\(base, name\)$/.test(fn[0] as string)) {
    if (fn[1] !== '  return base .. name' || fn[2] !== 'end') return null;
    return kept(fn[0] as string, 'name', 'key', ['    key = base .. name']);
  }
  const header = /^local function ([A-Za-z_][A-Za-z0-9_]*)\(base\)$/.exec(fn[0] as string);
  const suffix = KEY_OF_BASE.exec(fn[1] as string)?.[1];
  if (header === null || suffix === undefined || fn[2] !== 'end') return null;
  return kept(fn[0] as string, `'${suffix}'`, 'key', [`    key = base .. '${suffix}'`]);
}

/** A name the includes write for a constant: UPPER_SNAKE. */
const CONSTANT_NAME = /^[A-Z][A-Z0-9_]*$/;

/**
 * Whether the top-level `local names = …` `statement` of `lines` is a constant made once at
 * load: every name UPPER_SNAKE, its value read from no key, argument or call (no `KEYS`, `ARGV`,
 * `(`), and no other line assigning to one of them or to a field of one.
 */
function isConstant(names: string, statement: string[], lines: string[]): boolean {
  const list = names.split(/\s*,\s*/);
  if (!list.every((name) => CONSTANT_NAME.test(name))) return false;
  const text = statement.join('\n');
  if (!text.includes('=') || /\bKEYS\b|\bARGV\b|\(/.test(text)) return false;
  return list.every((name) => {
    const assigned = new RegExp(
      `(^|[^\\w.])${name}\\s*(\\[[^\\]]*\\]|\\.[A-Za-z_]\\w*)*\\s*=(?!=)`,
    );
    return lines.filter((line) => assigned.test(line)).length === 1;
  });
}

/**
 * Every script as one Redis Function library (Redis ≥ 7.0, FUNCTION LOAD): the library and
 * each function are named after a hash of the text, `ringmaster_<hash>` and
 * `ringmaster_<hash>_<script>`, so two versions of the engine never replace each other's.
 * `flags` gives each script's flag (DESIGN.md §3, "How scripts run").
 */
export function functionLibrary(
  scripts: readonly LuaScript[],
  flags: (name: string) => FunctionFlag,
): { name: string; functionPrefix: string; code: string } {
  const parts = scripts.map((script) => {
    const flag = flags(script.name);
    return {
      name: script.name,
      flags: flag === 'none' ? '' : `'${flag}'`,
      factory: functionFactory(script.lua),
    };
  });
  const hash = createHash('sha1').update(JSON.stringify(parts)).digest('hex').slice(0, 12);
  const name = `ringmaster_${hash}`;
  const functionPrefix = `${name}_`;
  const body = parts.map(
    (p) =>
      `redis.register_function{function_name='${functionPrefix}${p.name}', flags={${p.flags}}, callback=(function()\n${p.factory}\nend)()}`,
  );
  return { name, functionPrefix, code: `#!lua name=${name}\n${body.join('\n')}\n` };
}
