/**
 * The server `npm start` runs, dist/server/bundle.js: dist/server/main.js (tsc's output) and
 * every module it imports, libraries included, bundled by esbuild into one file, whitespace
 * and syntax minified
 * (DESIGN.md §6, PERFORMANCE.md §5). Why: a Node process keeps each module's source text for
 * lazy compilation and allocates a module record, a scope and a file read per module; a few
 * hundred modules in node_modules cost the idle server ~16 MiB of resident memory and half its
 * start-up time, one minified file far less. dist/ keeps tsc's per-module output: dist/lanes is
 * the importable engine (package.json `main`), dist/cli the CLI.
 *
 * What the bundle leaves outside, loaded from node_modules at run time:
 * - `@graphql-yoga/render-graphiql`, GraphiQL's page, imported on the first GraphiQL request
 *   (src/server/graphiql.ts): bundling it would put its ~30 MiB string back in every server.
 * - `pino-pretty`, imported at start only with `LOG_FORMAT=pretty` (src/server/logger.ts): a
 *   JSON server neither loads nor carries it.
 * It sits in dist/server/ beside main.js, so the paths the server derives from its own URL
 * (`../lua/`, `../../console/dist/`) are the same from either file.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Imported on first use, never at start: left to node_modules. */
export const LAZY = ['@graphql-yoga/render-graphiql', 'pino-pretty'];

/**
 * CommonJS libraries call `require` for Node's built-ins; an ES module bundle has none of its
 * own, so it gets one made for its URL.
 */
const BANNER =
  "import{createRequire as __rmRequire}from'node:module';const require=__rmRequire(import.meta.url);";

/** Modification time of `file` (ms), 0 when it is not there. */
const mtime = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);

/** What the bundle is made of, besides dist/: tsc's record of its last compile, the lock file. */
const inputsOf = ({ root, dist }) => [
  path.join(dist, '.tsbuildinfo'),
  path.join(root, 'package-lock.json'),
];

/** Where the digest of the inputs the bundle was made from is kept, beside it. */
const stampOf = (dist) => path.join(dist, 'server', 'bundle.inputs');

/** A digest of the inputs' contents (an absent file counts as empty). */
function inputsDigest(paths) {
  const hash = createHash('sha256');
  for (const file of paths) {
    hash.update(existsSync(file) ? readFileSync(file) : '').update('\0');
  }
  return hash.digest('hex');
}

/**
 * Whether `<dist>/server/bundle.js` is up to date with what it is made of (tsc's record of its
 * last compile, `<dist>/.tsbuildinfo`, and `package-lock.json` for the libraries): newer than
 * both (three mtimes, so `npm start` need not load esbuild, ~0.3 s, when nothing changed), or
 * else made from the same contents, per the digest kept beside it (`bundle.inputs`). The
 * second test is what tells "tsc compiled something": `tsc -b` rewrites .tsbuildinfo, with the
 * same content, after a source file was only touched, and esbuild would redo the same bundle.
 */
export function bundleUpToDate({ root, dist }) {
  const out = path.join(dist, 'server', 'bundle.js');
  if (!existsSync(out)) return false;
  const inputs = inputsOf({ root, dist });
  if (mtime(out) > Math.max(...inputs.map(mtime))) return true;
  const stamp = stampOf(dist);
  return existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === inputsDigest(inputs);
}

/**
 * esbuild's options for one minified ES module of `entry` and all it imports but `external`,
 * written to `outfile`: the server's bundle, and the CLI's in the server's package
 * (scripts/pack/server.mjs).
 */
export function bundleOptions({ root, entry, outfile, external = [] }) {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Whitespace and syntax, not identifiers: function and class names stay readable in stack
    // traces and logs (pino's `err.type`) for +0.8 MiB of heap. Not `keepNames`: it wraps every
    // named function in a `__name()` call that gives each closure its own `name` property,
    // ~3 KB more heap per graphql-ws subscriber (PERFORMANCE.md §5). Names are still not
    // guaranteed (a class whose name collides with another module's gets a digit appended),
    // so no code may test `error.name` of a library's class (src/server/redisConnect.ts).
    minifyWhitespace: true,
    minifySyntax: true,
    // Beside the bundle, not loaded unless asked for (`node --enable-source-maps`).
    sourcemap: 'linked',
    banner: { js: BANNER },
    logLevel: 'warning',
    external,
    absWorkingDir: root,
  };
}

/**
 * Bundle `<dist>/server/main.js` into `<dist>/server/bundle.js` when the bundle is missing or
 * not up to date with what it is made of ({@link bundleUpToDate}: tsc's record of its last
 * compile, `<dist>/.tsbuildinfo`, and `package-lock.json` for the libraries), and record their
 * digest beside it (`bundle.inputs`). `esbuild` is the package (`await import('esbuild')`).
 * Returns 'bundled' or 'up to date'; throws esbuild's error when the bundle fails.
 */
export async function bundleServer({ root, dist, esbuild, force }) {
  const out = path.join(dist, 'server', 'bundle.js');
  if (!force && bundleUpToDate({ root, dist })) return 'up to date';
  await esbuild.build(
    bundleOptions({
      root,
      entry: path.join(dist, 'server', 'main.js'),
      outfile: out,
      external: LAZY,
    }),
  );
  writeFileSync(stampOf(dist), `${inputsDigest(inputsOf({ root, dist }))}\n`);
  return 'bundled';
}
