/**
 * What a payload may hold (DESIGN.md §5, "Payloads"): exactly what its JSON text gives back. A
 * new user's finding: `enqueue('g', { n: NaN })` stored `{"n":null}`, and GraphQL variables
 * `{"p":{"n":1e400}}` (a JSON number past a double, parsed as Infinity) stored the same, both
 * silently. Everything `JSON.stringify` would drop or change silently is refused with
 * BAD_USER_INPUT naming its path (`payload.n`, `payload.items[2]`), engine and API alike, and
 * Redis is left unchanged; what it keeps is accepted as before.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, Ringmaster } from '../../src/lanes/index.js';
import { expectRedisUnchanged, post, seedEveryKey } from '../support/api.js';
import { uniqueQueueName } from '../support/lanes.js';
import { useTestServer } from '../support/server.js';

const api = useTestServer();

const sym = Symbol('s');
/** Each value, and the path its refusal names. */
const REFUSED: readonly (readonly [label: string, value: unknown, path: string])[] = [
  ['NaN', { n: Number.NaN }, 'payload.n'],
  ['Infinity', { n: Number.POSITIVE_INFINITY }, 'payload.n'],
  ['-Infinity at the top', Number.NEGATIVE_INFINITY, 'payload'],
  ['NaN deep in an array', { items: [1, { x: [0, Number.NaN] }] }, 'payload.items[1].x[1]'],
  ['undefined in an array', [1, undefined, 3], 'payload[1]'],
  // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested
  ['a hole in an array', [1, , 3], 'payload[1]'],
  ['a function property', { run: () => 1 }, 'payload.run'],
  ['a symbol value', { s: sym }, 'payload.s'],
  ['a symbol key', { [sym]: 1, ok: 1 }, 'payload'],
  ['a bigint', { big: 10n }, 'payload.big'],
  ['a Map (becomes {})', { m: new Map([['a', 1]]) }, 'payload.m'],
  ['a Set (becomes {})', { s: new Set([1]) }, 'payload.s'],
  ['a key that is not an identifier', { 'a b': Number.NaN }, 'payload["a b"]'],
  ['a boxed NaN', { n: new Number(Number.NaN) }, 'payload.n'],
  ['a toJSON answering NaN', { t: { toJSON: () => Number.NaN } }, 'payload.t'],
];

describe('a payload JSON cannot hold as given', () => {
  it.each(REFUSED)(
    'the engine refuses %s, naming its path, and writes nothing',
    async (_label, value, path) => {
      const redis = api.redis.client();
      const q = new Ringmaster(redis).queue(uniqueQueueName('json'));
      await seedEveryKey(q);
      const error = await expectRedisUnchanged(redis, () =>
        q.enqueue('a', value).then(
          () => null,
          (e: unknown) => e,
        ),
      );
      expect(error).toMatchObject({ code: ErrorCode.BAD_USER_INPUT, argument: 'payload' });
      expect((error as Error).message).toContain(`${path} `);
    },
  );

  it('GraphQL refuses a number past a double (1e400 parses as Infinity) and writes nothing', async () => {
    const redis = api.redis.client();
    const name = uniqueQueueName('json-api');
    await seedEveryKey(new Ringmaster(redis).queue(name));
    const body = `{"query":"mutation ($q: String!, $p: JSON) { enqueue(queue: $q, group: \\"g\\", payload: $p) { id payload } }","variables":{"q":"${name}","p":{"n":1e400,"m":-1e999}}}`;
    const res = await expectRedisUnchanged(redis, () => post(api.endpoint, body));
    expect(res.json?.errors?.[0]).toMatchObject({
      message: expect.stringContaining('payload.n '),
      extensions: { code: 'BAD_USER_INPUT', argument: 'payload' },
    });
  });

  it('accepts what JSON keeps: a Date as its ISO text, an undefined property left out, toJSON, -0 as 0', async () => {
    const q = new Ringmaster(api.redis.client()).queue(uniqueQueueName('json-ok'));
    const at = new Date('2026-12-02T07:00:00.000Z');
    const job = await q.enqueue('a', {
      at,
      gone: undefined,
      custom: { toJSON: () => ({ kept: [1, 'two', null, true] }) },
      zero: -0,
      big: 1e308,
      nested: [[], {}, ''],
    });
    expect((await q.job(job.id))?.payload).toEqual({
      at: '2026-12-02T07:00:00.000Z',
      custom: { kept: [1, 'two', null, true] },
      zero: 0,
      big: 1e308,
      nested: [[], {}, ''],
    });
  });
});
