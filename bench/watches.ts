/**
 * What many watches cost Redis when nothing changes ("Unbounded watches"): a live feed
 * with `--watches` group subscriptions on distinct queue/group names (100 groups a queue, as 50
 * sockets × 100 subscriptions did), then Redis' own command counts (INFO commandstats) over a
 * quiet window of `--seconds`. Only safety re-reads (or polls), and the canary, run then.
 *
 *   npx tsx bench/watches.ts                          5,000 watches, notifications, default cap
 *   npx tsx bench/watches.ts --cap=none               no cap (the re-reads only spread)
 *   npx tsx bench/watches.ts --mode=polling           a Redis that refuses CONFIG and publishes nothing
 *   npx tsx bench/watches.ts --src=/path/to/src       another checkout's feed (say, before the cap)
 *
 * Prints one JSON line. Nothing is asserted: the figures are for docs/RELIABILITY.md.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { pino } from 'pino';

interface Args {
  watches: number;
  seconds: number;
  mode: 'notifications' | 'polling';
  cap: number | undefined;
  src: string;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    watches: 5_000,
    seconds: 20,
    mode: 'notifications',
    cap: undefined,
    src: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src'),
  };
  for (const arg of argv) {
    const [name, value = ''] = arg.replace(/^--/, '').split('=');
    if (name === 'watches') args.watches = Number(value);
    else if (name === 'seconds') args.seconds = Number(value);
    else if (name === 'mode' && (value === 'notifications' || value === 'polling')) {
      args.mode = value;
    } else if (name === 'cap')
      args.cap = value === 'none' ? Number.POSITIVE_INFINITY : Number(value);
    else if (name === 'src') args.src = path.resolve(value);
    else throw new Error(`unknown argument ${arg}`);
  }
  return args;
}

/** `cmdstat_<name>` calls from INFO commandstats, by command. */
async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const match of (await redis.info('commandstats')).matchAll(/cmdstat_(\S+?):calls=(\d+)/g)) {
    calls.set(match[1] as string, Number(match[2]));
  }
  return calls;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const { startRedisServer } = await import(`${args.src}/server/redisProcess/index.ts`);
  const { Ringmaster } = await import(`${args.src}/lanes/index.ts`);
  const { LiveFeed } = await import(`${args.src}/pubsub/index.ts`);

  const server = await startRedisServer({
    appendOnly: false,
    ...(args.mode === 'polling'
      ? { extraArgs: ['--rename-command', 'CONFIG', 'bench-config'] }
      : {}),
  });
  const redis = new Redis(server.url);
  const admin = new Redis(server.url);
  const config = (...rest: string[]) =>
    admin.call(args.mode === 'polling' ? 'bench-config' : 'CONFIG', ...rest);
  await config('SET', 'notify-keyspace-events', '');
  const engine = new Ringmaster(redis, { prefix: 'bench' });
  const feed = new LiveFeed({
    engine,
    resyncIntervalMs: 5_000,
    pollIntervalMs: 1_000,
    ...(args.cap === undefined ? {} : { maxRereadsPerSecond: args.cap }),
    maxWatches: Math.max(10_000, args.watches),
    logger: pino({ level: 'silent' }),
  });
  await feed.start();
  const streams: AsyncGenerator<unknown>[] = [];
  for (let i = 0; i < args.watches; i++) {
    streams.push(feed.groupChanges(`q${Math.floor(i / 100)}`, `g${i % 100}`));
  }
  await Promise.all(streams.map((stream) => stream.next()));
  // One whole period first: every watch has had its first turn, the cost is steady.
  await new Promise((resolve) => setTimeout(resolve, args.mode === 'polling' ? 2_000 : 6_000));

  const before = await commandCalls(admin);
  const start = performance.now();
  // Sampled each second too: spread re-reads make a flat line, simultaneous ones a burst.
  let peak = 0;
  /** Script calls (a group read is one): FCALL, or EVALSHA on a Redis without it. */
  const scripts = (calls: Map<string, number>) =>
    (calls.get('fcall') ?? 0) + (calls.get('evalsha') ?? 0);
  let last = scripts(before);
  for (let second = 0; second < args.seconds; second++) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const now = scripts(await commandCalls(admin));
    peak = Math.max(peak, now - last);
    last = now;
  }
  const seconds = (performance.now() - start) / 1_000;
  const after = await commandCalls(admin);
  const rate = (name: string) => ((after.get(name) ?? 0) - (before.get(name) ?? 0)) / seconds;
  let total = 0;
  for (const [name, calls] of after) {
    // INFO itself (the two reads above) is the benchmark's, not the feed's.
    if (name !== 'info') total += calls - (before.get(name) ?? 0);
  }
  const stats = feed.stats();
  process.stdout.write(
    `${JSON.stringify({
      src: args.src,
      mode: feed.mode,
      watches: args.watches,
      cap: args.cap === undefined ? 'default' : Number.isFinite(args.cap) ? args.cap : 'none',
      channels: stats.channels,
      seconds: Number(seconds.toFixed(1)),
      commandsPerSecond: Math.round(total / seconds),
      groupReadsPerSecond: Math.round((scripts(after) - scripts(before)) / seconds),
      peakGroupReadsInOneSecond: peak,
      canaryMultisPerSecond: Number(rate('multi').toFixed(2)),
    })}\n`,
  );
  for (const stream of streams) await stream.return(undefined);
  await feed.stop();
  redis.disconnect();
  admin.disconnect();
  await server.stop();
}

main().catch((error: unknown) => {
  process.stderr.write(`bench/watches: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
