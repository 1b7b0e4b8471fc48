/**
 * `npm run weight`: what installing the engine's package (DESIGN.md §4.1, "The package") puts in
 * node_modules, beside `bullmq` (a devDependency) and `bullmq` with the ioredis it needs to reach
 * a Redis: each installed into an empty project under the system's temporary folder, from npm's
 * cache alone at the versions package-lock.json holds (scripts/pack/offline.mjs). Packages are
 * the folders holding one; MB counts the files' bytes (10^6), and what they take on disk.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packEngine } from './pack/engine.mjs';
import { installOffline, weigh } from './pack/offline.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const root = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const range = (name) => root.dependencies[name] ?? root.devDependencies[name];

const dir = mkdtempSync(path.join(os.tmpdir(), 'ringmaster-weight-'));
try {
  const engine = await packEngine({ root: ROOT, dest: dir });
  const installs = [
    { label: `${root.name} (packed here)`, tarballs: [engine] },
    { label: 'bullmq', dependencies: { bullmq: range('bullmq') } },
    {
      label: 'bullmq + ioredis',
      dependencies: { bullmq: range('bullmq'), ioredis: range('ioredis') },
    },
  ];
  const rows = [];
  for (const [i, install] of installs.entries()) {
    const project = path.join(dir, `project-${i}`);
    mkdirSync(project);
    await installOffline({ dir: project, root: ROOT, ...install });
    rows.push({ label: install.label, ...weigh(project) });
  }
  const mb = (bytes) => (bytes / 1e6).toFixed(1);
  const width = Math.max(...rows.map((row) => row.label.length));
  process.stdout.write(`${'install'.padEnd(width)}  packages      MB  MB on disk\n`);
  for (const row of rows) {
    process.stdout.write(
      `${row.label.padEnd(width)}  ${String(row.packages).padStart(8)}  ${mb(row.bytes).padStart(6)}  ${mb(row.disk).padStart(10)}\n`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
