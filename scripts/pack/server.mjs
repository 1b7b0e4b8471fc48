/**
 * The server's package, `ringmaster-server` (DESIGN.md §4.1, "The package"), staged in a folder
 * from the build `npm run build` makes (scripts/build.mjs): the server as `npm start` runs it,
 * dist/server/bundle.js (the engine, the live feed, the schema and their libraries in one file),
 * the scripts in dist/lua beside it, the console's console/dist, the CLI bundled the same way into
 * dist/cli/main.js (what bin/ringmaster.mjs runs), both bins and schema.graphql. What the bundles
 * leave outside (GraphiQL's page, pino-pretty: `LAZY`, imported on first use) are its package's
 * dependencies.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleOptions } from '../bundle.mjs';
import { serverPackage, serverReadme } from './manifests.mjs';
import { npmPack } from './npmPack.mjs';

/** Copied as they are, from the root into the package. */
const COPIED = [
  'bin/ringmaster.mjs',
  'bin/ringmaster-server.mjs',
  'dist/server/bundle.js',
  'dist/server/bundle.js.map',
  'dist/lua',
  'console/dist',
  'schema.graphql',
  'LICENSE',
];

/**
 * Stage the server's package in `out` (an empty folder) from `root`'s build; `esbuild` is the
 * package. Returns its package.json.
 */
export async function stageServer({ root, out, esbuild }) {
  const rootPackage = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  for (const file of COPIED) {
    cpSync(path.join(root, file), path.join(out, file), {
      recursive: true,
      // The console's build stamp (scripts/build.mjs) means nothing in a package.
      filter: (source) => path.basename(source) !== '.inputs',
    });
  }
  mkdirSync(path.join(out, 'dist', 'cli'), { recursive: true });
  await esbuild.build(
    bundleOptions({
      root,
      entry: path.join(root, 'dist', 'cli', 'main.js'),
      outfile: path.join(out, 'dist', 'cli', 'main.js'),
    }),
  );
  const manifest = serverPackage(rootPackage);
  writeFileSync(path.join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(path.join(out, 'README.md'), serverReadme(rootPackage));
  return manifest;
}

/**
 * Pack the server into `dest` from `root`'s build (staged under the system's temporary folder,
 * removed after). Returns `{ file, manifest }`.
 */
export async function packServer({ root, dest, esbuild }) {
  const out = mkdtempSync(path.join(os.tmpdir(), 'ringmaster-server-'));
  try {
    const manifest = await stageServer({ root, out, esbuild });
    return { file: await npmPack(out, dest), manifest };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
