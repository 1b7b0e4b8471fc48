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
    // One small bundle; report its size in the README when it changes.
    reportCompressedSize: true,
    chunkSizeWarningLimit: 150,
  },
  server: {
    proxy: { '/graphql': { target: 'http://127.0.0.1:4000', ws: true } },
  },
  // The build stays quiet; the dev server says where it is (its URL is printed at 'info').
  logLevel: command === 'serve' ? 'info' : 'warn',
}));
