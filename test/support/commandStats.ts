/**
 * What Redis ran, counted by Redis itself (INFO commandstats), for the flat-cost tests: a
 * script's own commands count, so a claim's cost can be compared between a small queue and a
 * large one.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
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
 * source)`), on a socket of its own to `client`'s host and port, until `stop()`. A raw socket,
 * not ioredis' `monitor()`: that one enters monitoring mode a tick after MONITOR's OK, so a line
 * that comes in the same read as the OK is taken for the reply to no command ("Command queue
 * state error", thrown outside any test) — which a busy node (servers reaping every 100 ms)
 * does.
 */
export async function monitorCommands(
  client: Redis,
  onCommand: (time: string, args: string[], source: string) => void,
): Promise<{ stop: () => Promise<void> }> {
  const socket = connect({
    host: client.options.host ?? '127.0.0.1',
    port: client.options.port ?? 6379,
  });
  socket.setEncoding('utf8');
  socket.on('error', () => {});
  let buffer = '';
  const ok = new Promise<void>((resolve, reject) => {
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (line === '+OK') resolve();
        else if (line.startsWith('-')) reject(new Error(line.slice(1)));
        else if (line.startsWith('+')) {
          const monitored = parseMonitorLine(line.slice(1));
          if (monitored) onCommand(monitored.time, monitored.args, monitored.source);
        }
      }
    });
  });
  await once(socket, 'connect');
  socket.write('MONITOR\r\n');
  await ok;
  return {
    stop: async () => {
      socket.removeAllListeners('data');
      socket.destroy();
    },
  };
}

/** One MONITOR line: `<time> [<db> <source>] "arg" "arg" …`, each argument quoted and escaped. */
function parseMonitorLine(
  line: string,
): { time: string; source: string; args: string[] } | undefined {
  const space = line.indexOf(' [');
  const close = line.indexOf('] ', space);
  if (space < 0 || close < 0) return undefined;
  const source = line
    .slice(space + 2, close)
    .split(' ')
    .slice(1)
    .join(' ');
  const args: string[] = [];
  let i = close + 2;
  while (i < line.length) {
    if (line[i] !== '"') {
      i++;
      continue;
    }
    let arg = '';
    for (i++; i < line.length && line[i] !== '"'; i++) {
      if (line[i] !== '\\') {
        arg += line[i];
        continue;
      }
      const next = line[++i];
      if (next === 'x') {
        arg += String.fromCharCode(Number.parseInt(line.slice(i + 1, i + 3), 16));
        i += 2;
      } else {
        arg += { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' }[next as string] ?? next;
      }
    }
    args.push(arg);
    i++;
  }
  return { time: line.slice(0, space), source, args };
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
