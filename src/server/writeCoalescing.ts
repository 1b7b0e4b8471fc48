/**
 * The server's command connection writes the commands of one event-loop turn to Redis in one
 * socket write, not one write each (docs/PERFORMANCE.md "Hot spots › GraphQL server").
 *
 * Under load, one turn of the server's loop parses the requests of many HTTP connections, and
 * each sends its script call as soon as it is resolved. One `write()` per command was a syscall
 * per request, and on loopback the write also runs the receiving side's TCP delivery: the
 * single largest extra a Redis-backed operation cost over `{ __typename }`. Here the first
 * command of a turn corks the socket, and `setImmediate` (after the turn's I/O callbacks and
 * their promise chains) uncorks it, so Node hands the turn's commands to the kernel in one
 * `writev`. Redis then reads them in one read and answers them together, so the replies come
 * back in one read too.
 *
 * This is not ioredis' auto-pipelining, which is off (ioredis issue #1931: a NOSCRIPT reply in
 * an auto-pipeline could throw out of ioredis' callback): every command is still sent on its own
 * by ioredis (`sendCommand`), with its own reply, error and EVALSHA → EVAL fallback; only the
 * socket write is deferred, never past the current turn. Order is kept (one socket, one buffer).
 * A socket that closes while corked loses those bytes as it would lose any unanswered command:
 * ioredis resends or rejects the commands in its queue, as for a write the kernel held.
 */
import type { Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { isCluster, type RedisClient } from '../lanes/internal.js';

const coalescing = new WeakSet<Redis>();

/**
 * Coalesce the socket writes of `redis` per event-loop turn: every node's connection for a
 * Cluster, those it opens later included. Idempotent; never throws.
 */
export function coalesceWrites(redis: RedisClient): void {
  if (isCluster(redis)) {
    for (const node of redis.nodes()) coalesceNode(node);
    redis.on('+node', (node: Redis) => coalesceNode(node));
    return;
  }
  coalesceNode(redis);
}

function coalesceNode(redis: Redis): void {
  if (coalescing.has(redis)) return;
  coalescing.add(redis);
  /** The socket corked in this turn, if any (at most one: a reconnect makes a new one). */
  let corked: Socket | null = null;
  const flush = (): void => {
    const socket = corked;
    corked = null;
    socket?.uncork();
  };
  const send = redis.sendCommand;
  // An own property over the prototype's: ioredis sends every command, a script's EVALSHA and
  // its EVAL fallback included, through `this.sendCommand`.
  redis.sendCommand = function (this: Redis, ...args: Parameters<Redis['sendCommand']>) {
    const socket = (this as unknown as { stream?: Socket }).stream;
    if (corked === null && socket !== undefined && socket.writable) {
      socket.cork();
      corked = socket;
      setImmediate(flush);
    }
    return send.apply(this, args);
  };
}
