/**
 * The key table of docs/DESIGN.md §2 is the one map of the keys, and src/lanes/keys.ts the one
 * producer: every key keys.ts builds is a row of the table with the same pattern, and every row
 * is a key keys.ts builds. Patterns are compared with prefix `P`, queue `Q`, and each
 * placeholder (`<group>`, `<id>`, …) given to a builder as one and the same text.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as keys from '../../src/lanes/keys.js';

/** What every placeholder of a pattern (`<group>`, `<id>`, `<t>`, …) reads as here. */
const SLOT = '<…>';
const PLACEHOLDER = /<[A-Za-z]+>/g;

/** The key column of each row of the table of DESIGN.md §2, `\|` read as `|`. */
function tablePatterns(design: string): string[] {
  const start = design.indexOf('\n## 2. Redis keys\n');
  const end = design.indexOf('\n## ', start + 1);
  const section = design.slice(start, end);
  const rows = section.split('\n').filter((line) => /^\|\s*`/.test(line));
  return rows.map((row) => {
    const cell = /^\|\s*`((?:[^`\\]|\\.)+)`\s*\|/.exec(row)?.[1];
    if (cell === undefined) throw new Error(`a row of DESIGN.md §2 without a key: ${row}`);
    return cell.replaceAll('\\|', '|');
  });
}

/**
 * Every key keys.ts builds, as a pattern: each string of `queueKeys('P', 'Q')` but the base,
 * each of its builders and each exported key function given {@link SLOT} for every argument
 * but the prefix. A key added to keys.ts is found here without this list changing.
 */
function producedPatterns(): string[] {
  const produced: string[] = [];
  const call = (fn: (...args: string[]) => unknown, first: string[]) => {
    const args = [...first];
    while (args.length < fn.length) args.push(SLOT);
    const key = fn(...args);
    if (typeof key !== 'string') throw new Error(`${fn.name} builds no key`);
    produced.push(key);
  };
  const { base, ...queue } = keys.queueKeys('P', 'Q');
  expect(base).toBe('P:{Q}:');
  for (const value of Object.values(queue)) {
    if (typeof value === 'string') produced.push(value);
    else call(value as (...args: string[]) => unknown, []);
  }
  for (const [name, value] of Object.entries(keys)) {
    if (typeof value !== 'function' || name === 'queueKeys') continue;
    call(value as (...args: string[]) => unknown, ['P']);
  }
  return produced;
}

const DESIGN = readFileSync(new URL('../../docs/DESIGN.md', import.meta.url), 'utf8');
const table = tablePatterns(DESIGN);
const normal = (pattern: string) => pattern.replace(PLACEHOLDER, SLOT);

describe('the key table of DESIGN.md §2 and src/lanes/keys.ts', () => {
  it('the table is found, one row per key', () => {
    expect(table.length).toBeGreaterThan(30);
    expect(table).toContain('P:{Q}:g:<group>:pending');
    expect(new Set(table.map(normal)).size).toBe(table.length);
  });

  it('every key keys.ts builds is a row', () => {
    const rows = new Set(table.map(normal));
    expect(producedPatterns().filter((key) => !rows.has(key))).toEqual([]);
  });

  it('every row is a key keys.ts builds', () => {
    const produced = new Set(producedPatterns());
    expect(table.filter((row) => !produced.has(normal(row)))).toEqual([]);
  });
});
