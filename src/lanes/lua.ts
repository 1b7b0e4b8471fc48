/**
 * Loads the scripts of `src/lua` (STYLE.md 1): one file per script, named `<name>-<numberOfKeys>.lua`,
 * with shared checks in `includes/` inlined wherever a line reads `--- @include "<name>"`.
 * Each include is inlined once per script, however many includes ask for it, so helpers can
 * include the helpers they depend on.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A script ready for ioredis `defineCommand`. */
export interface LuaScript {
  /** From the file name: `setLimit-8.lua` → `setLimit`. */
  readonly name: string;
  readonly numberOfKeys: number;
  /** The source with every include inlined, its comments and blank lines left out. */
  readonly lua: string;
}

/** Where the scripts live: `src/lua` from `src/lanes`, `dist/lua` from `dist/lanes`. */
export const LUA_DIR = fileURLToPath(new URL('../lua/', import.meta.url));

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

/**
 * Read every script in `dir` (default {@link LUA_DIR}) with its includes inlined.
 * Throws if an include is missing (ENOENT naming the file).
 */
export function loadScripts(dir: string = LUA_DIR): LuaScript[] {
  return readdirSync(dir)
    .map((file) => SCRIPT_FILE.exec(file))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([file, name, keys]) => ({
      name: name as string,
      numberOfKeys: Number(keys),
      lua: stripComments(inline(readFileSync(`${dir}${file}`, 'utf8'), dir, new Set())),
    }));
}
