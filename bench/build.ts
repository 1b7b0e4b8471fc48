/**
 * The compiled server the benchmark runs, brought up to date first (`node scripts/build.mjs`,
 * what `npm start` runs before the server), so a figure never comes from a stale dist/.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { progress } from './util.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/**
 * The checkout whose server is built and run: this one, or BENCH_SERVER_ROOT (another worktree,
 * e.g. the commit before a change), so an old and a new server meet the same load generator.
 */
export const SERVER_ROOT = process.env.BENCH_SERVER_ROOT?.trim() || ROOT;
/** The server in the build, relative to {@link SERVER_ROOT}: what `npm start` runs. */
export const SERVER_ENTRY = 'dist/server/bundle.js';
/** tsc's entry of the server, unbundled: what `npm start` ran before the bundle. */
export const SERVER_MODULES_ENTRY = 'dist/server/main.js';

/**
 * What `npm start` runs in {@link SERVER_ROOT}: the bundle, or, in a checkout from before it
 * (BENCH_SERVER_ROOT at an older commit), tsc's main.js; BENCH_SERVER_ENTRY (a path relative to
 * the root, e.g. `dist/server/main.js`) overrides it for a before/after of the bundle itself.
 * Call after {@link ensureBuilt}.
 */
export function serverEntry(): string {
  const chosen = process.env.BENCH_SERVER_ENTRY?.trim();
  if (chosen) return chosen;
  return existsSync(path.join(SERVER_ROOT, SERVER_ENTRY)) ? SERVER_ENTRY : SERVER_MODULES_ENTRY;
}

/**
 * The environment `npm start` gives the server in {@link SERVER_ROOT}: each `NAME=${NAME:-value}`
 * default its `start` script sets before `exec` (e.g. `MALLOC_ARENA_MAX`, PERFORMANCE.md §5),
 * with `value`, or the caller's own NAME where it has one, as the shell would. `{}` for a
 * checkout whose script sets none (an older BENCH_SERVER_ROOT) or has no package.json.
 */
export function startScriptEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  let script = '';
  try {
    const pkg = JSON.parse(readFileSync(path.join(SERVER_ROOT, 'package.json'), 'utf8')) as {
      scripts?: { start?: string };
    };
    script = pkg.scripts?.start ?? '';
  } catch {
    return {};
  }
  const set: Record<string, string> = {};
  const prefix = script.slice(0, Math.max(0, script.indexOf('exec ')));
  for (const [, name, value] of prefix.matchAll(/([A-Z_][A-Z0-9_]*)=\$\{\1:-([^}]*)\}/g)) {
    set[name as string] = env[name as string] || (value as string);
  }
  return set;
}

let built: Promise<void> | undefined;

/** Build what is stale, once per benchmark process; rejects with the build's output on failure. */
export function ensureBuilt(): Promise<void> {
  built ??= (async () => {
    progress(`build: node scripts/build.mjs in ${SERVER_ROOT} (what npm start runs first)`);
    try {
      await promisify(execFile)(process.execPath, ['scripts/build.mjs'], { cwd: SERVER_ROOT });
    } catch (error) {
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      throw new Error(`the build failed:\n${stdout}${stderr}`);
    }
  })();
  return built;
}
