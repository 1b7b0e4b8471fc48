/**
 * The bounds the scripts check live once, in src/lua/includes/bounds.lua, each equal to its
 * TypeScript twin (`Limits` of src/lanes/limits.ts, or JavaScript's own), and no other script
 * or include writes one of them again.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Limits } from '../../src/lanes/limits.js';
import { LUA_DIR, stripComments } from '../../src/lanes/scripts/lua.js';
import { useEngine } from '../support/lanes.js';

const engine = useEngine();

/** Each bound of bounds.lua and the value it must have: its TypeScript twin. */
const TWINS: Record<string, number | string> = {
  MAX_DELAY_MS: Limits.maxDelayMs,
  MAX_SAFE_INTEGER: Number.MAX_SAFE_INTEGER,
  MAX_SAFE_DIGITS: String(Number.MAX_SAFE_INTEGER),
  THROUGHPUT_MINUTES: Limits.throughputMinutes,
};

const BOUNDS_LUA = readFileSync(`${LUA_DIR}includes/bounds.lua`, 'utf8');
const DEFINED = [...stripComments(BOUNDS_LUA).matchAll(/^local ([A-Z_]+) = /gm)].map((m) => m[1]);

/** Every other Lua file (scripts and includes), without its comments. */
const OTHERS = [
  ...readdirSync(LUA_DIR)
    .filter((f) => f.endsWith('.lua'))
    .map((f) => [f, readFileSync(`${LUA_DIR}${f}`, 'utf8')]),
  ...readdirSync(`${LUA_DIR}includes`)
    .filter((f) => f.endsWith('.lua') && f !== 'bounds.lua')
    .map((f) => [`includes/${f}`, readFileSync(`${LUA_DIR}includes/${f}`, 'utf8')]),
].map(([file, text]) => [file as string, stripComments(text as string)] as const);

describe('includes/bounds.lua', () => {
  it('defines each bound that has a twin, and only those', () => {
    expect(DEFINED.sort()).toEqual(Object.keys(TWINS).sort());
  });

  it('each bound, as Redis runs it, equals its TypeScript twin', async () => {
    const names = Object.keys(TWINS);
    const script = `${BOUNDS_LUA}
return { ${names.map((n) => `type(${n}) == 'string' and ${n} or string.format('%d', ${n})`).join(', ')} }`;
    const values = (await engine.redis().eval(script, 0)) as string[];
    expect(Object.fromEntries(names.map((n, i) => [n, values[i]]))).toEqual(
      Object.fromEntries(names.map((n) => [n, String(TWINS[n])])),
    );
  });

  it('no other script or include defines a bound again, by its name or its value', () => {
    const values = Object.values(TWINS).map(String);
    const again = OTHERS.flatMap(([file, code]) => [
      ...DEFINED.filter((name) => new RegExp(`local ${name}\\b`).test(code)).map(
        (name) => `${file}: local ${name}`,
      ),
      ...values
        .filter((value) => new RegExp(`(?<![\\d.])${value}(?![\\d.])`).test(code))
        .map((value) => `${file}: ${value}`),
    ]);
    expect(again).toEqual([]);
  });
});
