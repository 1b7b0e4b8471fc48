/**
 * docs/ARCHITECTURE.md's floors hold: each part of src/ imports only what its floor may, the
 * console and the CLI only their stated pieces of src/, bench/ nothing of test/, and no module of
 * src/ or bench/ reaches itself again through its imports (type-only ones count: a cycle of
 * types is still two modules that cannot be understood apart).
 *
 * The import specifiers are read with TypeScript's own `preProcessFile`, which sees every
 * `import`, `export … from` and `import('…')` and skips comments and strings.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without declarations
import { enginePackage } from '../scripts/pack/manifests.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * What each part may import besides itself (ARCHITECTURE.md, "The floors"), by path: a folder
 * ends in `/`; the longest entry that a file's path starts with is its part.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  'src/lanes/': [],
  'src/pubsub/': ['src/lanes/'],
  'src/context.ts': ['src/lanes/', 'src/pubsub/'],
  'src/resolvers/': ['src/lanes/', 'src/pubsub/', 'src/context.ts', 'src/overrideWords.ts'],
  'src/schema/': ['src/lanes/', 'src/pubsub/', 'src/context.ts', 'src/resolvers/'],
  'src/server/': [
    'src/lanes/',
    'src/pubsub/',
    'src/context.ts',
    'src/schema/',
    'src/badPorts.ts',
    'src/decimalDigits.ts',
    'src/lookalikes.ts',
  ],
  'src/badPorts.ts': [],
  'src/decimalDigits.ts': [],
  'src/lookalikes.ts': [],
  'src/overrideWords.ts': [],
  'src/cli/': [
    'src/badPorts.ts',
    'src/decimalDigits.ts',
    'src/lookalikes.ts',
    'src/overrideWords.ts',
  ],
  'src/cli/bounds.ts': [
    'src/badPorts.ts',
    'src/decimalDigits.ts',
    'src/overrideWords.ts',
    'src/lanes/limits.ts',
  ],
  'console/src/': [
    'src/cli/groupStanding.ts',
    'src/cli/historyDetail.ts',
    'src/cli/visibleText.ts',
    'src/overrideWords.ts',
    'src/lanes/limits.ts',
  ],
  'bench/': ['src/'],
};

/** Every .ts/.tsx file under `dir` (relative to the root), or only its own with `deep` false. */
function sources(dir: string, deep = true): string[] {
  return readdirSync(join(ROOT, dir), { recursive: deep, encoding: 'utf8' })
    .filter((name) => /\.tsx?$/.test(name) && !name.endsWith('.d.ts'))
    .map((name) => posix.join(dir, name.split('\\').join('/')));
}

/** The file a relative specifier names (`./a.js` is `./a.ts`; the console's have no extension). */
function resolve(from: string, specifier: string): string | undefined {
  const base = relative(ROOT, join(ROOT, dirname(from), specifier))
    .split('\\')
    .join('/');
  const stem = base.replace(/\.js$/, '');
  return [base, `${stem}.ts`, `${stem}.tsx`, `${base}/index.ts`, `${base}/index.tsx`].find(
    (file) => existsSync(join(ROOT, file)) && statSync(join(ROOT, file)).isFile(),
  );
}

/** What `file` imports, as written: every `import`, `export … from` and `import('…')`. */
const specifiersOf = (file: string): string[] =>
  ts
    .preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true)
    .importedFiles.map(({ fileName }) => fileName);

/** Each file's relative imports, resolved to files (packages and `node:` left out). */
function importsOf(files: readonly string[]): Map<string, string[]> {
  return new Map(
    files.map((file) => {
      const targets = specifiersOf(file)
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => resolve(file, specifier) ?? `${specifier} (not found)`);
      return [file, targets];
    }),
  );
}

const partOf = (file: string) =>
  Object.keys(MAY_IMPORT)
    .filter((part) => file === part || (part.endsWith('/') && file.startsWith(part)))
    .sort((a, b) => b.length - a.length)[0];

/** The cycles among `graph`'s files, each as the path that closes it (depth-first, once each). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string) => {
    const at = path.indexOf(file);
    if (at >= 0) {
      found.push([...path.slice(at), file]);
      return;
    }
    if (done.has(file) || !graph.has(file)) return;
    path.push(file);
    for (const target of graph.get(file) ?? []) visit(target);
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) visit(file);
  return found;
}

/** The package a bare specifier names: `a` of `a/b`, `@s/a` of `@s/a/b`. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

const graph = importsOf([...sources('src'), ...sources('bench', false), ...sources('console/src')]);

describe('docs/ARCHITECTURE.md', () => {
  it('finds the files and their imports (the checks below have something to check)', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('src/server/yoga.ts')).toContain('src/schema/index.ts');
  });

  it('every file of src/, bench/ and console/src/ is on a floor', () => {
    expect([...graph.keys()].filter((file) => partOf(file) === undefined)).toEqual([]);
  });

  it('each imports only from its own part and the parts below it', () => {
    const wrong = [...graph].flatMap(([file, targets]) => {
      const part = partOf(file) as string;
      const allowed = [part, ...(MAY_IMPORT[part] ?? [])];
      return targets
        .filter(
          (target) =>
            !allowed.some((ok) => target === ok || (ok.endsWith('/') && target.startsWith(ok))),
        )
        .map((target) => `${file} -> ${target}`);
    });
    expect(wrong).toEqual([]);
  });

  it('no module of src/ or bench/ imports itself again through others', () => {
    const ours = new Map([...graph].filter(([file]) => !file.startsWith('console/')));
    expect(cycles(ours).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('src/lanes imports only Node built-ins and the dependencies of the engine package', () => {
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const listed = Object.keys(enginePackage(root).dependencies);
    const wrong = sources('src/lanes').flatMap((file) =>
      specifiersOf(file)
        .filter((specifier) => !specifier.startsWith('.') && !isBuiltin(specifier))
        .filter((specifier) => !listed.includes(packageOf(specifier)))
        .map((specifier) => `${file} -> ${specifier}`),
    );
    expect(wrong).toEqual([]);
    expect(listed).toContain('ioredis');
  });
});
