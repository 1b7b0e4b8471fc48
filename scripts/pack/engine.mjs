/**
 * The engine's package, `ringmaster` (DESIGN.md §4.1, "The package"), staged in a folder: the
 * modules `src/lanes/index.ts` reaches, compiled to dist/lanes with declarations and source maps
 * (the sources inlined, as no .ts is shipped), and the scripts in dist/lua, where `LUA_DIR`
 * (src/lanes/luaDir.ts, `../lua/` from dist/lanes) finds them inside the package.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { enginePackage, engineReadme } from './manifests.mjs';
import { npmPack } from './npmPack.mjs';

const require = createRequire(import.meta.url);

/** One line per diagnostic, as tsc prints them. */
function format(ts, diagnostics, root) {
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (file) => file,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  });
}

/**
 * Compile src/lanes/index.ts and what it imports into `<out>/dist/lanes` with the repository's
 * tsconfig.json (strict), typechecked. Throws tsc's messages on an error, and names any module
 * outside src/lanes that the engine reached.
 */
function compile(root, out) {
  const ts = require(require.resolve('typescript', { paths: [root] }));
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path.join(root, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (parsed === undefined || parsed.errors.length > 0) {
    throw new Error(`tsconfig.json: ${format(ts, parsed?.errors ?? [], root)}`);
  }
  const options = {
    ...parsed.options,
    rootDir: path.join(root, 'src'),
    outDir: path.join(out, 'dist'),
    noEmit: false,
    declaration: true,
    sourceMap: true,
    inlineSources: true,
    // A name for the sources the maps carry: the path from a staging folder would be
    // this machine's.
    sourceRoot: 'ringmaster:///src/',
    incremental: false,
  };
  delete options.tsBuildInfoFile;
  const program = ts.createProgram([path.join(root, 'src', 'lanes', 'index.ts')], options);
  const lanes = path.join(root, 'src', 'lanes') + path.sep;
  const strays = program
    .getSourceFiles()
    .map((file) => path.resolve(file.fileName))
    .filter((file) => !file.includes(`${path.sep}node_modules${path.sep}`))
    .filter((file) => !file.startsWith(lanes));
  if (strays.length > 0) throw new Error(`the engine imports outside src/lanes: ${strays}`);
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics];
  if (diagnostics.length > 0) throw new Error(format(ts, diagnostics, root));
}

/**
 * Stage the engine's package in `out` (an empty folder): dist/lanes, dist/lua, package.json
 * (scripts/pack/manifests.mjs), README.md and LICENSE. Returns its package.json.
 */
export function stageEngine({ root, out }) {
  const rootPackage = require(path.join(root, 'package.json'));
  compile(root, out);
  mkdirSync(path.join(out, 'dist'), { recursive: true });
  cpSync(path.join(root, 'src', 'lua'), path.join(out, 'dist', 'lua'), { recursive: true });
  const manifest = enginePackage(rootPackage);
  writeFileSync(path.join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(path.join(out, 'README.md'), engineReadme(rootPackage));
  cpSync(path.join(root, 'LICENSE'), path.join(out, 'LICENSE'));
  return manifest;
}

/**
 * Pack the engine into `dest` (`npm pack` of a folder staged by {@link stageEngine} under the
 * system's temporary folder, removed after). Returns `{ file, manifest }`: the tarball's
 * absolute path and its package.json.
 */
export async function packEngine({ root, dest }) {
  const out = mkdtempSync(path.join(os.tmpdir(), 'ringmaster-engine-'));
  try {
    const manifest = stageEngine({ root, out });
    return { file: await npmPack(out, dest), manifest };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
