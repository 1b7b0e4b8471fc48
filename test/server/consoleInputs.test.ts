/**
 * `npm start` rebuilds the console when a digest of its inputs changes (scripts/build.mjs,
 * consoleInputs): console/ itself, and the files outside it the console imports, which the
 * script lists in CONSOLE_SHARED. A console import that leaves console/ unlisted would leave a
 * stale console/dist after that file changed; this holds the list to the imports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONSOLE = path.join(ROOT, 'console');

/** Every .ts/.tsx file below `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** The files outside console/ that console/src imports, relative to the root, with .ts. */
function importedFromOutside(): string[] {
  const outside = new Set<string>();
  for (const file of sources(path.join(CONSOLE, 'src'))) {
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const target = path.resolve(path.dirname(file), spec as string);
      if (!target.startsWith(`${CONSOLE}${path.sep}`)) {
        outside.add(`${path.relative(ROOT, target).replace(/\.js$/, '')}.ts`);
      }
    }
  }
  return [...outside].sort();
}

/** CONSOLE_SHARED as scripts/build.mjs writes it. */
function listed(): string[] {
  const script = readFileSync(path.join(ROOT, 'scripts/build.mjs'), 'utf8');
  const list = /const CONSOLE_SHARED = \[([^\]]*)\]/.exec(script)?.[1];
  if (list === undefined) throw new Error('scripts/build.mjs has no CONSOLE_SHARED list');
  return [...list.matchAll(/'([^']+)'/g)].map((m) => m[1] as string).sort();
}

describe("the console's inputs outside console/", () => {
  it('are the ones scripts/build.mjs digests (CONSOLE_SHARED), each importing nothing itself', () => {
    const files = importedFromOutside();
    expect(files).toEqual(listed());
    for (const file of files) {
      expect(readFileSync(path.join(ROOT, file), 'utf8'), file).not.toMatch(/^import /m);
    }
  });
});
