/**
 * What Redis ran, counted by Redis itself (INFO commandstats), for the flat-cost tests: a
 * script's own commands count, so a claim's cost can be compared between a small queue and a
 * large one.
 */
import type { Redis } from 'ioredis';

/** This measurement's reads, and the script calls themselves (their commands are counted). */
const LEFT_OUT = ['info', 'config', 'evalsha', 'eval'];

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
