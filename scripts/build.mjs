/**
 * `npm run build`, and `npm start` before it runs the server: bring the build up to date,
 * rebuilding only what changed since the last one.
 *
 *   node scripts/build.mjs            what is stale
 *   node scripts/build.mjs --force    everything
 *
 * - dist/ (server and engine, with declarations): `tsc -b tsconfig.build.json`, incremental
 *   through dist/.tsbuildinfo: about a second when no source changed. tsc -b trusts that file
 *   alone, so a build without dist/server/main.js or dist/lanes/index.js is redone in full.
 * - dist/lua: replaced by a copy of src/lua every time (milliseconds), so a script renamed or
 *   removed in src/lua (the key count is in the name) never lingers beside its successor.
 * - dist/server/bundle.js, what `npm start` runs: dist/server/main.js and all it imports in one
 *   minified file (scripts/bundle.mjs, esbuild, ~1 s), remade when tsc compiled anything or
 *   package-lock.json changed since the last bundle: by content, so a source file only touched
 *   (tsc -b rewrites .tsbuildinfo as it was) leaves the bundle as it is.
 * - console/dist: `vite build` when a digest of what it is built from (console/ without dist,
 *   the sources it shares with the CLI, CONSOLE_SHARED, and package-lock.json for the libraries
 *   it bundles) differs from the one recorded beside the last build (console/dist/.inputs).
 *
 * An install without devDependencies (`npm ci --omit=dev`) has no tsc and no Vite: an existing
 * build is then used as it is (a warning says so), and a missing server build is an error
 * saying how to make one. Exit code: 0 when dist/server/bundle.js is there to run, 1 otherwise.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleServer, bundleUpToDate } from './bundle.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = path.join(ROOT, 'dist');
const CONSOLE = path.join(ROOT, 'console');
const CONSOLE_DIST = path.join(CONSOLE, 'dist');
/** Where the console's input digest is kept; vite empties console/dist, so it goes with it. */
const CONSOLE_STAMP = path.join(CONSOLE_DIST, '.inputs');
/** tsc's record of the last build, rewritten when it compiles anything. */
const BUILD_INFO = path.join(DIST, '.tsbuildinfo');
/** What tsc must have made for the build to be runnable and importable. */
const ENTRIES = ['server/main.js', 'lanes/index.js'].map((file) => path.join(DIST, file));
/** What `npm start` runs (scripts/bundle.mjs). */
const BUNDLE = path.join(DIST, 'server', 'bundle.js');

const require = createRequire(import.meta.url);

/** A line on stderr: stdout belongs to the server's JSON log under `npm start`. */
const say = (message) => process.stderr.write(`ringmaster build: ${message}\n`);

/** The path of `specifier` from this checkout, or null when it is not installed. */
function resolve(specifier) {
  try {
    return require.resolve(specifier);
  } catch {
    return null;
  }
}

/** The text of `file`, or '' when there is none. */
const readIfThere = (file) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

/** Seconds since `t0` (ms), for the summary line. */
const since = (t0) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

/** tsc -b into dist/; false when it reported errors. */
function buildServer(force) {
  const tsc = resolve('typescript/bin/tsc');
  if (tsc === null) {
    if (ENTRIES.every((file) => existsSync(file))) {
      say('typescript is not installed (no devDependencies): running the existing dist/');
      return true;
    }
    say(
      'dist/ holds no build and typescript is not installed (no devDependencies): run ' +
        '`npm ci` then `npm run build` here, or copy a dist/ built elsewhere',
    );
    return false;
  }
  const t0 = performance.now();
  const full = force || !ENTRIES.every((file) => existsSync(file));
  const before = readIfThere(BUILD_INFO);
  const result = spawnSync(
    process.execPath,
    [tsc, '-b', 'tsconfig.build.json', ...(full ? ['--force'] : [])],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (result.status !== 0) {
    say(`tsc failed (exit ${result.status ?? result.signal}): the server was not built`);
    return false;
  }
  rmSync(path.join(DIST, 'lua'), { recursive: true, force: true });
  cpSync(path.join(ROOT, 'src', 'lua'), path.join(DIST, 'lua'), { recursive: true });
  const what = full ? 'built' : readIfThere(BUILD_INFO) === before ? 'up to date' : 'rebuilt';
  say(`dist/ ${what} (tsc -b, ${since(t0)})`);
  return true;
}

/** dist/server/bundle.js brought up to date; false when it cannot be (or its build failed). */
async function bundle(force) {
  if (resolve('esbuild') === null) {
    if (existsSync(BUNDLE)) {
      if (resolve('typescript/bin/tsc') !== null) {
        say('esbuild is not installed: running the existing dist/server/bundle.js, maybe stale');
      }
      return true;
    }
    say(
      'dist/server/bundle.js is not built and esbuild is not installed (no devDependencies): ' +
        'run `npm ci` then `npm run build` here, or copy a dist/ built elsewhere',
    );
    return false;
  }
  if (!force && bundleUpToDate({ root: ROOT, dist: DIST })) return true;
  const t0 = performance.now();
  try {
    const esbuild = await import('esbuild');
    const what = await bundleServer({ root: ROOT, dist: DIST, esbuild, force });
    if (what === 'bundled') say(`dist/server/bundle.js bundled (esbuild, ${since(t0)})`);
    return true;
  } catch (error) {
    say(`esbuild failed: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}

/** Every file under `dir` but `skip` (absolute paths), in a stable order. */
function files(dir, skip) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => {
      const file = path.join(dir, entry.name);
      if (skip.includes(file)) return [];
      return entry.isDirectory() ? files(file, skip) : entry.isFile() ? [file] : [];
    });
}

/** Files outside console/ that the console imports (dependency-free, shared with the CLI). */
const CONSOLE_SHARED = [
  'src/cli/groupStanding.ts',
  'src/cli/historyDetail.ts',
  'src/cli/visibleText.ts',
  'src/lanes/limits.ts',
  'src/overrideWords.ts',
];

/** A digest of the console's inputs: each file's path and content. */
function consoleInputs() {
  const hash = createHash('sha256');
  const inputs = [
    ...files(CONSOLE, [CONSOLE_DIST, path.join(CONSOLE, 'node_modules')]),
    // Absent where the sources are not shipped (a production install): nothing to build from.
    ...CONSOLE_SHARED.map((file) => path.join(ROOT, file)).filter((file) => existsSync(file)),
    path.join(ROOT, 'package-lock.json'),
  ];
  for (const file of inputs) {
    hash.update(path.relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** vite build of console/ when its inputs changed; a failure throws, a missing Vite is only said. */
async function buildConsole(force) {
  const digest = consoleInputs();
  const built = existsSync(path.join(CONSOLE_DIST, 'index.html'));
  const recorded = readIfThere(CONSOLE_STAMP).trim();
  if (!force && built && recorded === digest) return;
  if (resolve('vite') === null) {
    say(
      built
        ? 'vite is not installed (no devDependencies): serving the existing console/dist'
        : 'vite is not installed (no devDependencies): the console is not built; / will say so',
    );
    return;
  }
  const t0 = performance.now();
  const { build } = await import('vite');
  await build({ root: CONSOLE, logLevel: 'warn' });
  writeFileSync(CONSOLE_STAMP, `${digest}\n`);
  say(`console/dist built (vite, ${since(t0)})`);
}

const args = process.argv.slice(2);
for (const arg of args) {
  if (arg !== '--force') {
    say(`unknown argument ${arg}; the only one is --force`);
    process.exit(2);
  }
}
const force = args.includes('--force');
if (!buildServer(force) || !(await bundle(force))) process.exit(1);
try {
  await buildConsole(force);
} catch (error) {
  say(`vite build failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
// Vite may leave workers behind; the build is over.
process.exit(0);
