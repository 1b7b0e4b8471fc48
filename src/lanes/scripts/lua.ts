/**
 * Loads the scripts of `src/lua`: one file per script, named `<name>-<numberOfKeys>.lua`, with
 * shared checks in `includes/` inlined wherever a line reads `--- @include "<name>"`.
 * Each include is inlined once per script, however many includes ask for it, so helpers can
 * include the helpers they depend on.
 */
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
