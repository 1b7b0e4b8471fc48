import { fileURLToPath } from 'node:url';

/**
 * Where the scripts live: `src/lua` from `src/lanes`, `dist/lua` from `dist/lanes`, and
 * `dist/lua` from the server's bundle in `dist/server`. It sits one folder below the root of
 * `src/` (or `dist/`) for that last reason: in the bundle every module's `import.meta.url` is the
 * bundle's, so the path must be right from that depth.
 */
export const LUA_DIR = fileURLToPath(new URL('../lua/', import.meta.url));
