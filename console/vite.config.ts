/**
 * The console's build: `npm run build:console` (`vite build console`; `npm start` runs it through
 * scripts/build.mjs when console/ changed since the last build) writes
 * console/dist, which the server serves at `/` (src/server/console.ts). `npm run dev:console`
 * serves it with hot reload and proxies /graphql (HTTP and WebSocket) to a server on :4000.
 */
import { defineConfig } from 'vite';

export default defineConfig(({ command }) => ({
  base: '/',
  // Preact's automatic JSX runtime, without a plugin: Vite's own transform (Oxc) does it.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // One small bundle; report its size in docs/console.md when it changes.
    reportCompressedSize: true,
    // A deliberate budget (kB, minified), not Vite's generic nudge toward dynamic import(): the
    // console is one bundle on purpose, docs/console.md gives its size (152 KB minified, 53 KB
    // gzipped), and a first `npm start` should not warn about it. Passing 200 KB is the signal
    // to look again (split uPlot out, or raise this with a docs/console.md update);
    // test/cli/readme.test.ts holds that page's figure under this budget.
    chunkSizeWarningLimit: 200,
  },
  server: {
    proxy: { '/graphql': { target: 'http://127.0.0.1:4000', ws: true } },
  },
  // The build stays quiet; the dev server says where it is (its URL is printed at 'info').
  logLevel: command === 'serve' ? 'info' : 'warn',
}));
