/**
 * vitest globalSetup: the CLI and the server compiled once for the whole run, so the tests that
 * run them as child processes spawn `node <bundle> …` instead of paying tsx's compile and
 * module resolution in every child (measured: `--version` ~0.25 s of CPU against ~1 s under
 * tsx; the server's refused start ~0.4 s against ~3 s). The transform is the one tsx applies
 * (esbuild's: TypeScript types stripped), done once, and a single file is what `npm start` runs
 * too (dist/server/bundle.js, scripts/bundle.mjs). The launcher that picks a build or the
 * source (bin/ringmaster.mjs) has its own test (test/cli/launcher.test.ts).
 *
 * Each bundle sits where its entry does, two levels below the project's root, because both
 * find files from their own URL: the CLI `../../package.json` (`--version`), the server
 * `../lua/` and `../../console/dist/`. One file of each per run (by pid; gitignored), removed at
 * teardown, so two runs in one tree do not share them.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
// @ts-expect-error: a plain ES module script without declarations
import { LAZY } from '../../scripts/bundle.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** CommonJS libraries in a bundle call `require`; an ES module has none of its own. */
const BANNER =
  "import{createRequire as __rmRequire}from'node:module';const require=__rmRequire(import.meta.url);";

declare module 'vitest' {
  export interface ProvidedContext {
    /** Absolute path of the CLI (src/cli/main.ts) bundled: run it as `node <path> <args>`. */
    cliBundle: string;
    /** Absolute path of the server (src/server/main.ts) bundled: `node <path>`, cwd anywhere. */
    serverBundle: string;
    /**
     * The fault tests' child processes, test/fixtures/<name>.ts by name, bundled: run each as
     * `node <path>` (test/faults/support.ts `forkFixture`).
     */
    fixtureBundles: Record<string, string>;
  }
}

/**
 * The fixtures the fault tests run as child processes: bundled, each starts on ~0.1 s of CPU
 * instead of ~0.55 s under tsx (measured here), and a fault run starts about twenty.
 */
const FIXTURES = ['fault-worker', 'server-child', 'subscribers'];

/**
 * Bundle `entry` (relative to the root) into `.test-bundle-<pid>.mjs` in its own folder, or as
 * `.test-bundle-<name>-<pid>.mjs` in `besides`' folder (for a fixture: the server's, from which
 * the engine and the server find their files as they do from the server's bundle).
 */
async function bundle(
  entry: string,
  external: string[] = [],
  besides?: { entry: string; name: string },
): Promise<string> {
  const source = path.join(ROOT, entry);
  const outfile = besides
    ? path.join(
        ROOT,
        path.dirname(besides.entry),
        `.test-bundle-${besides.name}-${process.pid}.mjs`,
      )
    : path.join(path.dirname(source), `.test-bundle-${process.pid}.mjs`);
  await build({
    entryPoints: [source],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: { js: BANNER },
    // As scripts/bundle.mjs: what is imported on first use is left to node_modules.
    external,
    logLevel: 'warning',
    absWorkingDir: ROOT,
  });
  return outfile;
}

/**
 * The run's bundles, made once: vitest runs this setup for the root and again for each project
 * (they extend the root's configuration), all in its one main process.
 */
const made = globalThis as { ringmasterTestBundles?: Promise<string[]> | undefined };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = 'src/server/main.ts';
  made.ringmasterTestBundles ??= Promise.all([
    bundle('src/cli/main.ts'),
    bundle(server, LAZY),
    ...FIXTURES.map((name) =>
      bundle(`test/fixtures/${name}.ts`, LAZY, { entry: server, name: `fixture-${name}` }),
    ),
  ]);
  const files = await made.ringmasterTestBundles;
  const [cliBundle, serverBundle, ...fixtures] = files as [string, string, ...string[]];
  project.provide('cliBundle', cliBundle);
  project.provide('serverBundle', serverBundle);
  project.provide(
    'fixtureBundles',
    Object.fromEntries(FIXTURES.map((name, i) => [name, fixtures[i] as string])),
  );
  return async () => {
    // A setup run again in this process (watch mode) makes them again.
    made.ringmasterTestBundles = undefined;
    await Promise.all(files.map((file) => rm(file, { force: true })));
  };
}
