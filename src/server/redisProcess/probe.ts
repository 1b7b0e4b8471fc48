/** The readiness probe: does a Redis answer on a loopback port, and whose is it? */
import net from 'node:net';
import { HOST } from './constants.js';

export type Ready = { kind: 'ready'; pid: number | null } | { kind: 'not-ready'; detail: string };

/**
 * One readiness probe: connect, send `INFO server`, read one RESP reply.
 * - a bulk reply is the server running: its `process_id` tells whose server it is;
 * - `-LOADING` is a server still reading its append-only file: not ready yet;
 * - any other error reply (NOAUTH when `requirepass` is in `extraArgs`, INFO renamed away) still
 *   proves a server is serving commands, so it counts as ready, without a pid to check;
 * - a refused, reset or silent connection is not ready.
 * A raw socket rather than ioredis: no reconnect logic, no offline queue, nothing left behind.
 */
export function probe(port: number, timeoutMs: number): Promise<Ready> {
  return new Promise((resolve) => {
    const socket = net.createConnection({ host: HOST, port });
    let buffer = Buffer.alloc(0);
    let settled = false;
    const finish = (result: Ready): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(
      () => finish({ kind: 'not-ready', detail: `no reply within ${timeoutMs} ms` }),
      timeoutMs,
    );
    socket.on('connect', () => socket.write('INFO server\r\n'));
    socket.on('error', (err: NodeJS.ErrnoException) =>
      finish({ kind: 'not-ready', detail: err.code ?? err.message }),
    );
    socket.on('close', () => finish({ kind: 'not-ready', detail: 'connection closed' }));
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const headerEnd = buffer.indexOf('\r\n');
      if (headerEnd < 0) return;
      const header = buffer.subarray(0, headerEnd).toString('utf8');
      if (header.startsWith('-')) {
        finish(
          header.startsWith('-LOADING')
            ? { kind: 'not-ready', detail: header.slice(1) }
            : { kind: 'ready', pid: null },
        );
        return;
      }
      if (!header.startsWith('$')) {
        finish({ kind: 'not-ready', detail: `unexpected reply ${JSON.stringify(header)}` });
        return;
      }
      // Bulk string: `$<byte length>\r\n<bytes>\r\n`. Wait until all its bytes are in.
      const length = Number(header.slice(1));
      if (buffer.length < headerEnd + 2 + length) return;
      const info = buffer.subarray(headerEnd + 2, headerEnd + 2 + length).toString('utf8');
      const match = /^process_id:(\d+)/m.exec(info);
      finish({ kind: 'ready', pid: match?.[1] === undefined ? null : Number(match[1]) });
    });
  });
}

export const TIMED_OUT = Symbol('timed out');

/** `promise`, or {@link TIMED_OUT} after `ms`; the timer never keeps the process alive longer. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
