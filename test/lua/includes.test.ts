/**
 * The key producer has two halves: `src/lanes/keys.ts` (every key the engine passes in KEYS) and
 * `src/lua/includes/keys.lua` (the lane and job keys a script builds from the `P:{Q}:` base). They
 * must build the same names, or a script would write a key no read ever finds; and no script may
 * build one past the include, or a change of layout would miss it.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scriptNames, scriptSource } from '../../src/lanes/commands.js';
import { queueKeys, WAKE_LENGTH } from '../../src/lanes/keys.js';
import { LUA_DIR } from '../../src/lanes/lua.js';
import { useEngine } from '../support/lanes.js';

const engine = useEngine();
const KEYS_LUA = readFileSync(`${LUA_DIR}includes/keys.lua`, 'utf8');

interface Case {
  prefix: string;
  queue: string;
  group: string;
  id: string;
}

/** Every case's base, lane key and job key as keys.lua builds them, in one EVAL. */
async function luaKeys(cases: readonly Case[]): Promise<{ wake: number; built: string[][] }> {
  const script = `${KEYS_LUA}
local built = {}
for i = 1, #ARGV, 3 do
  local base = ARGV[i]
  built[#built + 1] = { laneKeyOf(base, ARGV[i + 1]), jobKeyOf(base, ARGV[i + 2]) }
end
return { WAKE_LENGTH, built }`;
  const args = cases.flatMap((c) => [queueKeys(c.prefix, c.queue).base, c.group, c.id]);
  const [wake, built] = (await engine.redis().eval(script, 0, ...args)) as [number, string[][]];
  return { wake, built };
}

const TRICKY: Case[] = [
  { prefix: 'emq', queue: 'q', group: 'g', id: '1' },
  { prefix: 'emq', queue: 'orders', group: 'tenant-42', id: '9007199254740991' },
  { prefix: 'a:b', queue: '{x}', group: 'g:1:pending', id: 'job:7' },
  { prefix: 'p', queue: 'q r', group: ' spaced group ', id: '0' },
  { prefix: 'ünï', queue: 'κόσμε', group: '租户🎉', id: '12' },
  { prefix: 'p', queue: 'q', group: '', id: '' },
];

describe('keys.lua and keys.ts build the same names', () => {
  it('for the lane and job keys of awkward names (colons, braces, spaces, non-ASCII, empty)', async () => {
    const { built } = await luaKeys(TRICKY);
    expect(built).toEqual(
      TRICKY.map((c) => {
        const k = queueKeys(c.prefix, c.queue);
        return [k.lane(c.group), k.job(c.id)];
      }),
    );
  });

  it('for any text', async () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 12 });
    const cases = fc.sample(fc.record({ prefix: text, queue: text, group: text, id: text }), {
      numRuns: 300,
      seed: 14,
    });
    const { built } = await luaKeys(cases);
    for (const [i, c] of cases.entries()) {
      const k = queueKeys(c.prefix, c.queue);
      expect(built[i], JSON.stringify(c)).toEqual([k.lane(c.group), k.job(c.id)]);
    }
  });

  it('and keep the same number of wake tokens', async () => {
    const { wake } = await luaKeys([]);
    expect(wake).toBe(WAKE_LENGTH);
  });
});

describe('no script builds a key past includes/keys.lua', () => {
  // What building a lane or job key by hand looks like: the literals of the layout, or a
  // concatenation onto the base.
  const BY_HAND = /'g:'|':pending'|'job:'|"g:"|"job:"|\bbase\s*\.\./;

  it.each([...scriptNames])('%s', (name) => {
    const source = scriptSource(name).replace(KEYS_LUA, '');
    const code = source.replace(/--\[\[[\s\S]*?\]\]/g, '').replace(/--[^\n]*/g, '');
    expect(code).not.toMatch(BY_HAND);
  });

  it('(the check sees a key built by hand)', () => {
    expect("local laneKey = base .. 'g:' .. group .. ':pending'").toMatch(BY_HAND);
    expect("redis.call('HGET', ARGV[1] .. 'job:' .. id, 'token')").toMatch(BY_HAND);
  });
});
