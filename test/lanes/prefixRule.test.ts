/**
 * The engine's key prefix `prefix` follows the server's `KEY_PREFIX` rule (DESIGN.md §5): 1 to
 * 64 of A-Z a-z 0-9 . _ - :. Anything else (braces would override every queue's Cluster hash
 * tag; a space, a control character) is BAD_USER_INPUT `prefix` at construction, with
 * nothing opened or written, and in the same words as the server's refusal.
 */
import { describe, expect, it } from 'vitest';
import { Queue, Reaper, Ringmaster, RingmasterError, Worker } from '../../src/lanes/index.js';
import { ConfigError, loadConfig } from '../../src/server/config.js';
import { uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();

const BAD = ['{x}', '', 'a b*\n', 'ü', 'x'.repeat(65), 7, null];
const RULE = 'must be 1 to 64 of A-Z a-z 0-9 . _ - :';

/** What `make` threw (it must throw). */
function thrown(make: () => unknown): unknown {
  try {
    make();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

function expectPrefixRefusal(error: unknown): void {
  expect(error).toBeInstanceOf(RingmasterError);
  const refusal = error as RingmasterError;
  expect(refusal.code).toBe('BAD_USER_INPUT');
  expect(refusal.argument).toBe('prefix');
  expect(refusal.message).toBe(`prefix: ${RULE}`);
}

describe("the engine's prefix option", () => {
  it('is refused by every constructor that takes one, before anything is opened or written', async () => {
    const client = engine.client();
    await client.flushdb();
    const name = uniqueQueueName();
    for (const prefix of BAD) {
      const options = { prefix } as { prefix: string };
      expectPrefixRefusal(thrown(() => new Queue(name, { connection: client, ...options })));
      expectPrefixRefusal(thrown(() => new Queue(client, name, options)));
      // From a URL: refused before the queue opens a connection of its own.
      expectPrefixRefusal(
        thrown(() => new Queue(name, { connection: engine.handle.url, ...options })),
      );
      expectPrefixRefusal(thrown(() => new Ringmaster(client, options)));
      expectPrefixRefusal(thrown(() => new Ringmaster(engine.handle.url, options)));
      expectPrefixRefusal(
        thrown(
          () =>
            new Worker(name, async () => {}, {
              connection: engine.handle.url,
              autorun: false,
              ...options,
            }),
        ),
      );
    }
    expect(await client.dbsize()).toBe(0);
  });

  it('accepts what the rule allows, and the reaper runs on it', async () => {
    const client = engine.client();
    // `app:emq`: the keys an ioredis keyPrefix `app:` named (the way off it keeps them).
    for (const prefix of ['a', 'A-z_0.9', 'app:emq', 'p'.repeat(64)]) {
      const queue = new Ringmaster(client, { prefix }).queue(uniqueQueueName());
      await queue.enqueue('g', 1);
      expect(await client.exists(`${prefix}:{${queue.name}}:ring`)).toBe(1);
      const reaper = new Reaper(queue);
      expect(await reaper.reapOnce()).toBe(0);
      await reaper.close();
    }
  });

  it("states the server's KEY_PREFIX rule, word for word", () => {
    for (const prefix of ['{x}', 'a b', 'ü']) {
      try {
        loadConfig({ KEY_PREFIX: prefix });
        throw new Error('expected a refusal');
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as Error).message).toMatch(`: ${RULE}`);
        expect((error as Error).message).toMatch(/^KEY_PREFIX=/);
      }
    }
  });
});
