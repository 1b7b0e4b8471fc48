/**
 * Installs into a fresh project from npm's cache alone, for the packed engine's test
 * (test/lanes/package.e2e.test.ts) and `npm run weight` (scripts/weight.mjs).
 *
 * `npm ci` fills npm's cache with the tarballs this repository's package-lock.json names, but not
 * with the registry's metadata, so a plain `npm install ioredis` cannot resolve offline. A fresh
 * project gets a package-lock.json of its own instead: the root lock's entries for what it
 * installs and all they need, at the same versions, which npm then fetches from its cache by
 * integrity (`--offline`). What the lock does not hold (a package of no dependency of the root)
 * fails with ENOTCACHED rather than reaching the network.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

/** Every lock entry's field that ties it to the root project's dependency kinds. */
const ROOT_ONLY = ['dev', 'devOptional', 'peer', 'extraneous'];

/** The lock path `name` resolves to from the package at `from` ('' is the project), as Node looks it up. */
function locate(packages, from, name) {
  let dir = from;
  for (;;) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (dir === '') return undefined;
    const at = dir.lastIndexOf('/node_modules/');
    dir = at < 0 ? '' : dir.slice(0, at);
  }
}

/** The names `entry` needs installed: its dependencies, optional ones and required peers. */
function needs(entry) {
  const optionalPeers = entry.peerDependenciesMeta ?? {};
  return [
    ...Object.keys(entry.dependencies ?? {}),
    ...Object.keys(entry.optionalDependencies ?? {}),
    ...Object.keys(entry.peerDependencies ?? {}).filter((name) => !optionalPeers[name]?.optional),
  ];
}

/**
 * A package-lock.json (v3) for a project named `name` that depends on `dependencies` (name →
 * range): each resolved through `rootLock` (the parsed root package-lock.json) or given in
 * `local` (name → a lock entry of its own, e.g. a packed tarball's), and everything they need
 * from `rootLock`, at the paths it has there. Throws naming a package the root lock lacks.
 */
export function lockFor({ rootLock, name, dependencies, local = {} }) {
  const source = { ...rootLock.packages };
  for (const [dep, entry] of Object.entries(local)) source[`node_modules/${dep}`] = entry;
  const packages = { '': { name, version: '0.0.0', dependencies } };
  const queue = [''];
  while (queue.length > 0) {
    const from = queue.shift();
    const entry = from === '' ? packages[''] : source[from];
    for (const dep of needs(entry)) {
      const found = locate(source, from, dep);
      if (found === undefined) {
        if (entry.optionalDependencies?.[dep] !== undefined) continue;
        throw new Error(`package-lock.json has no ${dep} (needed by ${from || name})`);
      }
      if (packages[found] !== undefined) continue;
      const copy = { ...source[found] };
      if (copy.devOptional) copy.optional = true;
      for (const field of ROOT_ONLY) delete copy[field];
      packages[found] = copy;
      queue.push(found);
    }
  }
  return { name, version: '0.0.0', lockfileVersion: 3, requires: true, packages };
}

/** The lock entry of the packed package `tarball`, installed as `file:<its name>`. */
function tarballEntry(tarball, manifest) {
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const entry = {
    version: manifest.version,
    resolved: `file:${path.basename(tarball)}`,
    integrity,
  };
  for (const field of ['license', 'dependencies', 'engines', 'bin']) {
    if (manifest[field] !== undefined) entry[field] = manifest[field];
  }
  return entry;
}

/**
 * Make `dir` (existing, empty) a project that depends on `dependencies` (name → range, resolved
 * through `<root>/package-lock.json`) and on each of `tarballs` (`{ file, manifest }`: a
 * packed package's absolute path, copied in, and its package.json), and install them from npm's cache alone (see the module comment).
 * Resolves with npm's stderr (its warnings); rejects with npm's error when it fails.
 */
export async function installOffline({ dir, root, dependencies = {}, tarballs = [] }) {
  const rootLock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
  const name = path
    .basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-');
  const all = { ...dependencies };
  const local = {};
  for (const { file, manifest } of tarballs) {
    copyFileSync(file, path.join(dir, path.basename(file)));
    all[manifest.name] = `file:${path.basename(file)}`;
    local[manifest.name] = tarballEntry(file, manifest);
  }
  writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ name, version: '0.0.0', private: true, dependencies: all }, null, 2)}\n`,
  );
  const lock = lockFor({ rootLock, name, dependencies: all, local });
  writeFileSync(path.join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  const { stderr } = await promisify(execFile)(
    'npm',
    ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=warn'],
    { cwd: dir },
  );
  return stderr;
}

/**
 * What `dir`/node_modules holds: `packages`, the folders that are one (each copy counts), `bytes`,
 * their files' sizes, and `disk`, the blocks those files take (as `du` counts).
 */
export function weigh(dir) {
  const total = { packages: 0, bytes: 0, disk: 0 };
  /** `folder`'s files; `modules` when its subfolders are packages (or scopes of them). */
  const walk = (folder, modules) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        const scope = modules && entry.name.startsWith('@');
        if (modules && !scope && !entry.name.startsWith('.')) total.packages += 1;
        walk(file, scope || entry.name === 'node_modules');
      } else if (entry.isFile()) {
        const stats = statSync(file);
        total.bytes += stats.size;
        total.disk += stats.blocks * 512;
      }
    }
  };
  walk(path.join(dir, 'node_modules'), true);
  return total;
}
