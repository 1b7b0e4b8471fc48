/**
 * `npm run pack`: the two packages of DESIGN.md §4.1, "The package", packed into packs/
 * (replaced each time, gitignored) from one build of this repository:
 * - `ringmaster`, the engine (scripts/pack/engine.mjs), compiled here from src/lanes;
 * - `ringmaster-server`, the server, its console and the CLI (scripts/pack/server.mjs), from
 *   the build `npm run build` makes (scripts/build.mjs, run first).
 * Their package.json files come from the root one (scripts/pack/manifests.mjs).
 */
import { execFileSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packEngine } from './pack/engine.mjs';
import { packServer } from './pack/server.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKS = path.join(ROOT, 'packs');

rmSync(PACKS, { recursive: true, force: true });
execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
const esbuild = await import('esbuild');
const packed = [
  await packEngine({ root: ROOT, dest: PACKS }),
  await packServer({ root: ROOT, dest: PACKS, esbuild }),
];
for (const { file } of packed) {
  const kB = (statSync(file).size / 1000).toFixed(0);
  process.stdout.write(`${path.relative(ROOT, file)}  ${kB} kB\n`);
}
