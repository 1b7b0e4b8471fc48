/**
 * V8 flags the server sets on itself as it starts (`main.ts`, before it builds anything), so
 * they hold however it is started: `npm start`, `node dist/server/bundle.js`, the benchmark.
 *
 * `--compact-on-every-full-gc`: every full (mark-compact) collection evacuates the old
 * generation's live objects into fresh pages and frees the rest, where V8's default compacts
 * only the pages its heuristics pick. Without it, the garbage promoted while thousands of
 * WebSockets connect (the upgrades' short-lived objects, not traced one by one) leaves old-space
 * pages partly free once it dies, and resident: 0.9–1.6 KB of RSS per idle subscriber at 5,000
 * in the fan-out benchmark, 0.1–0.2 KB with it (PERFORMANCE.md §5). Full
 * collections are rare next to the young generation's: the A/B showed no server CPU per change
 * at 5,000 nor per GraphQL request above its noise (at 1,000 perhaps 1–3 ms of 35–40; same
 * section). V8 reads the flag at every collection, so setting it at run time takes effect from
 * the next one.
 */
import v8 from 'node:v8';

/** The flags {@link applyV8Flags} sets, as `node` would take them on its command line. */
export const SERVER_V8_FLAGS: readonly string[] = ['--compact-on-every-full-gc'];

/** Set {@link SERVER_V8_FLAGS} in this process' V8; idempotent. */
export function applyV8Flags(): void {
  for (const flag of SERVER_V8_FLAGS) v8.setFlagsFromString(flag);
}
