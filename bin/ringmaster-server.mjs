#!/usr/bin/env node
/**
 * `ringmaster-server` (the server package's bin, scripts/pack/server.mjs): runs the server as
 * `npm start` does, dist/server/bundle.js, configured by the environment (DESIGN.md §6).
 */
await import('../dist/server/bundle.js');
