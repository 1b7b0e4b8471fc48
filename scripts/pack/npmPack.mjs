/** `npm pack` of a staged package folder (scripts/pack/engine.mjs, scripts/pack/server.mjs). */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

/** Pack the package staged in `folder` into `dest` (made if missing); the tarball's absolute path. */
export async function npmPack(folder, dest) {
  mkdirSync(dest, { recursive: true });
  const { stdout } = await promisify(execFile)(
    'npm',
    ['pack', folder, '--pack-destination', dest, '--json', '--loglevel=warn'],
    { cwd: folder },
  );
  const [packed] = JSON.parse(stdout);
  return path.resolve(dest, packed.filename);
}
