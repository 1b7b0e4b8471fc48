/**
 * The server bundle `npm start` runs (scripts/bundle.mjs, DESIGN.md §6) on a small dist/ of its
 * own: the modules main.js imports end up inside it, GraphiQL's page and pino-pretty stay dynamic
 * imports left to node_modules (bundled, GraphiQL's ~30 MiB string would be in every server's
 * memory; pino-pretty is for LOG_FORMAT=pretty alone), and it is
 * remade when tsc compiled something (dist/.tsbuildinfo changed) and not otherwise — not when
 * tsc only rewrote that record as it was.
 * test/server/build.e2e.test.ts runs the real one, GraphiQL's first request included.
 */
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without declarations
import { bundleServer, LAZY } from '../../scripts/bundle.mjs';

let root: string;
let dist: string;
const bundled = () => readFile(path.join(dist, 'server', 'bundle.js'), 'utf8');
const run = (force = false): Promise<string> => bundleServer({ root, dist, esbuild, force });

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'ringmaster-bundle-'));
  dist = path.join(root, 'dist');
  await mkdir(path.join(dist, 'server'), { recursive: true });
  await writeFile(path.join(root, 'package-lock.json'), '{}\n');
  await writeFile(path.join(dist, '.tsbuildinfo'), '{}\n');
  await writeFile(
    path.join(dist, 'server', 'main.js'),
    [
      "import { answer } from './answer.js';",
      'console.log(answer);',
      "export const page = () => import('@graphql-yoga/render-graphiql');",
      "export const pretty = () => import('pino-pretty');",
      '',
    ].join('\n'),
  );
  await writeFile(
    path.join(dist, 'server', 'answer.js'),
    "export const answer = 'bundled-module-marker';\n",
  );
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('scripts/bundle.mjs', () => {
  it('bundles what main.js imports and leaves GraphiQL and pino-pretty to node_modules, imported on first use', async () => {
    expect(await run()).toBe('bundled');
    const text = await bundled();
    expect(text).toContain('bundled-module-marker');
    expect(text).not.toMatch(/from\s*["']\.\/answer\.js["']/);
    expect(LAZY).toEqual(['@graphql-yoga/render-graphiql', 'pino-pretty']);
    for (const name of LAZY) expect(text).toContain(`import("${name}")`);
  });

  it('is remade when tsc compiled something since, and only then', async () => {
    await run(true);
    expect(await run()).toBe('up to date');
    // The bundle made before tsc's last compile (mtimes set back, so no sleeping).
    const made = new Date(Date.now() - 10_000);
    const compiled = new Date(Date.now() - 5_000);
    await utimes(path.join(dist, 'server', 'bundle.js'), made, made);
    // A compile changes tsc's record (it lists each file's new version), not only its mtime.
    await writeFile(path.join(dist, '.tsbuildinfo'), '{"compiled":2}\n');
    await utimes(path.join(dist, '.tsbuildinfo'), compiled, compiled);
    await writeFile(
      path.join(dist, 'server', 'answer.js'),
      "export const answer = 'recompiled-marker';\n",
    );
    expect(await run()).toBe('bundled');
    expect(await bundled()).toContain('recompiled-marker');
    expect(await run()).toBe('up to date');
  });

  it('is not remade when tsc only rewrote its record as it was (a source file touched)', async () => {
    await run(true);
    const made = new Date(Date.now() - 10_000);
    const rewritten = new Date(Date.now() - 5_000);
    await utimes(path.join(dist, 'server', 'bundle.js'), made, made);
    // tsc -b after `touch src/server/main.ts`: .tsbuildinfo newer, its content the same.
    const info = path.join(dist, '.tsbuildinfo');
    await writeFile(info, await readFile(info));
    await utimes(info, rewritten, rewritten);
    expect(await run()).toBe('up to date');
    // package-lock.json changed (content): remade.
    await writeFile(path.join(root, 'package-lock.json'), '{"lockfileVersion":3}\n');
    expect(await run()).toBe('bundled');
  });
});
