/**
 * What Redis ran, counted by Redis itself (INFO commandstats), for the flat-cost tests: a
 * script's own commands count, so a claim's cost can be compared between a small queue and a
 * large one.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LIBRARY, scriptSource } from '../../src/lanes/scripts/commands.js';

/**
 * This measurement's reads, and the script calls themselves (their commands are counted), with
 * the library's load on a connection's first call.
 */
const LEFT_OUT = ['info', 'config', 'evalsha', 'eval', 'fcall', 'function|load'];

/** The script calls in INFO commandstats `info`: FCALL, and EVALSHA and EVAL (Redis 6.2). */
export function scriptCallsIn(info: string): number {
  let n = 0;
  for (const m of info.matchAll(/^cmdstat_(?:evalsha|eval|fcall):calls=(\d+)/gm)) n += Number(m[1]);
  return n;
}

/**
 * The calls of each command Redis ran during `call` (CONFIG RESETSTAT, then INFO
 * commandstats), by name, but the ones of {@link LEFT_OUT}. `admin` is a connection to a
 * Redis nothing else uses meanwhile.
 */
export async function commandsDuring(
  admin: Redis,
  call: () => Promise<unknown>,
): Promise<Record<string, number>> {
  await admin.config('RESETSTAT');
  await call();
  const out: Record<string, number> = {};
  for (const line of (await admin.info('commandstats')).split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line);
    if (m && !LEFT_OUT.includes(m[1] as string)) out[m[1] as string] = Number(m[2]);
  }
  return out;
}

/** All the calls of {@link commandsDuring}. */
export async function commandCountDuring(
  admin: Redis,
  call: () => Promise<unknown>,
): Promise<number> {
  const counts = await commandsDuring(admin, call);
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

/**
 * Every command Redis runs from now on, as MONITOR reports it (`onCommand(time in s, args,
 * source)`), on a connection of its own made from `client`, until `stop()`. Stopping drops
 * the lines still on the wire: ioredis reports each one that arrives after it left monitoring
 * mode as a "Command queue state error" on the connection, which is noise here, not a failure.
 */
export async function monitorCommands(
  client: Redis,
  onCommand: (time: string, args: string[], source: string) => void,
): Promise<{ stop: () => Promise<void> }> {
  const monitor = await client.monitor();
  monitor.on('monitor', onCommand);
  return {
    stop: async () => {
      monitor.removeAllListeners('monitor');
      monitor.on('error', () => {});
      await monitor.disconnect();
    },
  };
}

/**
 * Whether a command Redis ran (as MONITOR shows it: name, then arguments) is a call of script
 * `name`: its FCALL, its EVALSHA or its EVAL. Each puts its first key at the same place (3).
 */
export function callsScript(args: readonly string[], name: string): boolean {
  const [command, first] = args;
  switch (command?.toLowerCase()) {
    case 'fcall':
      return first === `${LIBRARY.functionPrefix}${name}`;
    case 'evalsha':
      return first === createHash('sha1').update(scriptSource(name)).digest('hex');
    case 'eval':
      return first === scriptSource(name);
    default:
      return false;
  }
}
