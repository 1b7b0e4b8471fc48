/**
 * The Lua includes that hold a rule of DESIGN.md once, against their TypeScript halves, and the
 * check that no script writes the rule again past its include:
 * - the key producer: `src/lanes/keys.ts` (every key the engine passes in KEYS) and
 *   `src/lua/includes/keys.lua` (the lane and job keys a script builds from the `P:{Q}:` base)
 *   must build the same names, or a script would write a key no read ever finds;
 * - invariant I1: `isServiceable` in `src/lua/includes/groupState.lua`, however a script reaches
 *   it (every field given, read by `groupState`, judged from `readGroup`'s fields by `standing`),
 *   says what `groupState` in `src/lanes/queue/state.ts` says (READY is "on the ring");
 * - a timed override's data: `overrideOf` in `src/lua/includes/overrideData.lua` (applyOverrides'
 *   revert, the audit) reads any stored text as `parseOverride` (the reads) does.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Defaults } from '../../src/lanes/defaults.js';
import { JOB_LAYOUT, queueKeys, WAKE_LENGTH } from '../../src/lanes/keys.js';
import { groupState, parseOverride, retentionFrom } from '../../src/lanes/queue/state.js';
import { scriptNames, scriptSource } from '../../src/lanes/scripts/commands.js';
import { LUA_DIR, stripComments } from '../../src/lanes/scripts/lua.js';
import { uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();
const include = (name: string) => readFileSync(`${LUA_DIR}includes/${name}.lua`, 'utf8');
const KEYS_LUA = include('keys');
const GROUP_STATE_LUA = include('groupState');
/** safeInteger.lua with the bounds it includes (inlined here by hand, as the loader would). */
const SAFE_INTEGER_LUA = `${include('bounds')}${include('safeInteger')}`;

/**
 * A script's inlined source without comments, and without the text of `except` (an include's
 * source: inlined verbatim, less the top-level functions the script does not call, which the
 * loader drops: so it is taken out one top-level function or line at a time).
 */
function codeOf(name: string, except: string): string {
  // Redis gets the scripts without comments (stripComments), so `except` is taken out so too.
  let source = scriptSource(name);
  const pieces = stripComments(except)
    .split(/^--- @include .*$/m)
    .join('\n')
    .split(/^(?=local function )|(?<=^end)\n/m);
  for (const piece of pieces) {
    if (piece.trim() !== '') source = source.replace(piece.trim(), '');
  }
  return source.replace(/--\[\[[\s\S]*?\]\]/g, '').replace(/--[^\n]*/g, '');
}

interface Case {
  prefix: string;
  queue: string;
  group: string;
  id: string;
}

/** Every case's keys as keys.lua builds them (the lane, job, … of {@link tsKeys}), in one EVAL. */
async function luaKeys(
  cases: readonly Case[],
): Promise<{ wake: number; built: string[][]; layout: string }> {
  const script = `${KEYS_LUA}
local built = {}
for i = 1, #ARGV, 3 do
  local base = ARGV[i]
  local group, id = ARGV[i + 1], ARGV[i + 2]
  built[#built + 1] = { laneKeyOf(base, group), jobKeyOf(base, id), groupDelayedKeyOf(base, group),
    groupDeadKeyOf(base, group), groupCompletedKeyOf(base, group), errorsKeyOf(base, id),
    historyKeyOf(base), overridesKeyOf(base),
    overrideDataKeyOf(base), rateKeyOf(base), rateWindowKeyOf(base), rateLimitedKeyOf(base),
    weightKeyOf(base), turnsKeyOf(base), headsKeyOf(base), pendingRankKeyOf(base),
    activeRankKeyOf(base),
    baseOf(base .. 'glimit', 'glimit'), payloadsKeyOf(base), resultsKeyOf(base), settingsKeyOf(base),
    jobEventsKeyOf(base, id), watchedKeyOf(base), ringWatchedKeyOf(base), ringLogKeyOf(base),
    seenKeyOf(base), reserveKeyOf(base), levelsKeyOf(base), prioritizedKeyOf(base),
    workersKeyOf(base), workerInfoKeyOf(base),
    jobPrefixOf(base) .. id, groupPrefixOf(base) .. group .. LANE_SUFFIX,
    jobPrefixOf(base) .. id .. ERRORS_SUFFIX, idemKeyOf(base, group), logsKeyOf(base, id),
    jobPrefixOf(base) .. id .. LOGS_SUFFIX, throughputKeyOf(base), claimKeysOf(base).glimit,
    claimKeysOf(base).gactive, claimKeysOf(base).ring, claimKeysOf(base).paused,
    claimKeysOf(base).wake, claimKeysOf(base).active, claimKeysOf(base).leases,
    claimKeysOf(base).stats, claimKeysOf(base).delayed, claimKeysOf(base).settings,
    claimKeysOf(base).completed }
end
return { WAKE_LENGTH, built, JOB_LAYOUT }`;
  const args = cases.flatMap((c) => [queueKeys(c.prefix, c.queue).base, c.group, c.id]);
  const [wake, built, layout] = (await engine.redis().eval(script, 0, ...args)) as [
    number,
    string[][],
    string,
  ];
  return { wake, built, layout };
}

/** The same keys as keys.ts builds them. */
function tsKeys(c: Case): string[] {
  const k = queueKeys(c.prefix, c.queue);
  return [
    k.lane(c.group),
    k.job(c.id),
    k.groupDelayed(c.group),
    k.groupDead(c.group),
    k.groupCompleted(c.group),
    k.errors(c.id),
    k.history,
    k.overrides,
    k.overrideData,
    k.rate,
    k.rateWindow,
    k.rateLimited,
    k.weight,
    k.turns,
    k.heads,
    k.pendingRank,
    k.activeRank,
    k.base,
    k.payloads,
    k.results,
    k.settings,
    k.jobEvents(c.id),
    k.watched,
    k.ringWatched,
    k.ringLog,
    k.seen,
    k.reserve,
    k.levels,
    k.prioritized,
    k.workers,
    k.workerInfo,
    // The per-job loops' prefix forms (keys.lua, jobPrefixOf / groupPrefixOf).
    k.job(c.id),
    k.lane(c.group),
    k.errors(c.id),
    // An idempotency key, of any text (the group's stands in).
    k.idem(c.group),
    k.logs(c.id),
    k.logs(c.id),
    k.throughput,
    // The claim's keys (claimKeysOf).
    k.glimit,
    k.gactive,
    k.ring,
    k.paused,
    k.wake,
    k.active,
    k.leases,
    k.stats,
    k.delayed,
    k.settings,
    k.completed,
  ];
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
  it('for the keys of awkward names (colons, braces, spaces, non-ASCII, empty)', async () => {
    const { built } = await luaKeys(TRICKY);
    expect(built).toEqual(TRICKY.map(tsKeys));
  });

  it('for any text', async () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 12 });
    const cases = fc.sample(fc.record({ prefix: text, queue: text, group: text, id: text }), {
      numRuns: 300,
      seed: 14,
    });
    const { built } = await luaKeys(cases);
    for (const [i, c] of cases.entries()) {
      expect(built[i], JSON.stringify(c)).toEqual(tsKeys(c));
    }
  });

  it('and keep the same number of wake tokens', async () => {
    const { wake } = await luaKeys([]);
    expect(wake).toBe(WAKE_LENGTH);
  });

  it('and name the same job layout', async () => {
    const { layout } = await luaKeys([]);
    expect(layout).toBe(JOB_LAYOUT);
  });
});

describe('no script builds a key past includes/keys.lua', () => {
  // What building a lane or job key by hand looks like: the literals of the layout, or a
  // concatenation onto the base.
  const BY_HAND =
    /'g:'|':pending'|':delayed'|':dead'|':completed'|':errors'|':logs'|':events'|'job:'|"g:"|"job:"|\bbase\s*\.\./;

  it.each([...scriptNames])('%s', (name) => {
    expect(codeOf(name, KEYS_LUA)).not.toMatch(BY_HAND);
  });

  it('(the check sees a key built by hand)', () => {
    expect("local laneKey = base .. 'g:' .. group .. ':pending'").toMatch(BY_HAND);
    expect("redis.call('HGET', ARGV[1] .. 'job:' .. id, 'token')").toMatch(BY_HAND);
  });
});

interface Standing {
  limit: number | null;
  active: number;
  paused: boolean;
  pending: number;
  /** In `ratelimited`: I1's rate clause. */
  limited: boolean;
}

const STANDINGS: Standing[] = [];
for (const limit of [null, 0, 1, 2]) {
  for (const active of [0, 1, 2, 3]) {
    for (const paused of [false, true]) {
      for (const pending of [0, 1, 3]) {
        for (const limited of [false, true]) {
          STANDINGS.push({ limit, active, paused, pending, limited });
        }
      }
    }
  }
}

describe('I1 is isServiceable (includes/groupState.lua), the same as src/lanes/queue/state.ts', () => {
  it('for every standing, whether the script gives the fields, reads them, or has readGroup read them', async () => {
    const keys = queueKeys('t', uniqueQueueName());
    const redis = engine.redis();
    const write = redis.multi();
    for (const [i, s] of STANDINGS.entries()) {
      const group = `g${i}`;
      if (s.limit !== null) write.hset(keys.glimit, group, s.limit);
      if (s.active > 0) write.hset(keys.gactive, group, s.active);
      if (s.paused) write.sadd(keys.paused, group);
      for (let j = 1; j <= s.pending; j++) write.zadd(keys.lane(group), j, String(j));
      if (s.limited) write.zadd(keys.rateLimited, 1_000 + i, group);
    }
    await write.exec();
    // Each standing judged three ways: { serviceable, saturated } as 0|1, each way in turn.
    const script = `${KEYS_LUA}${SAFE_INTEGER_LUA}${GROUP_STATE_LUA}${include('groupReply')}
local k = { base = ARGV[1], glimit = KEYS[1], gactive = KEYS[2], paused = KEYS[3] }
local function bits(serviceable, saturated)
  return { serviceable and 1 or 0, saturated and 1 or 0 }
end
local out = {}
for i = 2, #ARGV, 6 do
  local group, limit = ARGV[i], tonumber(ARGV[i + 1])
  local active, paused, pending = tonumber(ARGV[i + 2]), ARGV[i + 3] == '1', tonumber(ARGV[i + 4])
  local limited = ARGV[i + 5] == '1'
  local laneKey = laneKeyOf(ARGV[1], group)
  out[#out + 1] = {
    bits(isServiceable(k, group, laneKey, limit, active, paused, pending, limited)),
    bits(isServiceable(k, group, laneKey, limit, active, paused, pending)),
    bits(groupState(k, group, laneKey)),
    bits(standing(k, group, readGroup(k, group, laneKey))),
  }
end
return out`;
    const args = STANDINGS.flatMap((s, i) => [
      `g${i}`,
      s.limit === null ? '' : String(s.limit),
      String(s.active),
      s.paused ? '1' : '0',
      String(s.pending),
      s.limited ? '1' : '0',
    ]);
    const judged = (await redis.eval(
      script,
      3,
      keys.glimit,
      keys.gactive,
      keys.paused,
      keys.base,
      ...args,
    )) as number[][][];
    for (const [i, s] of STANDINGS.entries()) {
      const onRing =
        groupState({ ...s, rateLimitedUntil: s.limited ? 1_000 + i : null }) === 'READY' ? 1 : 0;
      const saturated = s.limit !== null && s.active >= s.limit ? 1 : 0;
      const want = [onRing, saturated];
      expect(judged[i], JSON.stringify(s)).toEqual([want, want, want, want]);
    }
  });

  it('reads the pause flag only when not saturated, the lane only when neither, the rate clause only when all pass', async () => {
    // Keys of the wrong type: reading either would fail the script with WRONGTYPE.
    const keys = queueKeys('t', uniqueQueueName());
    const redis = engine.redis();
    await redis.set(keys.paused, 'not a set');
    await redis.set(keys.lane('g'), 'not a zset');
    // Built from k.glimit's name (no base in k): read, it would fail with WRONGTYPE too.
    await redis.set(keys.rateLimited, 'not a zset');
    const script = `${SAFE_INTEGER_LUA}${GROUP_STATE_LUA}
local k = { glimit = KEYS[1], gactive = KEYS[2], paused = KEYS[3] }
local saturated = { isServiceable(k, 'g', KEYS[4], 2, 2) }
local paused = { isServiceable(k, 'g', KEYS[4], 2, 1, true) }
local empty = { isServiceable(k, 'g', KEYS[4], nil, nil, false, 0) }
return { saturated[1] and 1 or 0, saturated[2] and 1 or 0, paused[1] and 1 or 0,
  empty[1] and 1 or 0 }`;
    const reply = await redis.eval(
      script,
      4,
      keys.glimit,
      keys.gactive,
      keys.paused,
      keys.lane('g'),
    );
    expect(reply).toEqual([0, 1, 0, 0]);
  });
});

describe('no script judges I1 past includes/groupState.lua', () => {
  // What judging a group by hand looks like: a comparison with its limit.
  const BY_HAND = /[<>]=?\s*[\w.]*limit\b/;

  it.each([...scriptNames])('%s', (name) => {
    expect(codeOf(name, GROUP_STATE_LUA)).not.toMatch(BY_HAND);
  });

  it('(the check sees a group judged by hand)', () => {
    expect('if g.active < g.limit then').toMatch(BY_HAND);
    expect('if limit and before >= limit and after < limit then').toMatch(BY_HAND);
  });
});

describe('retention.lua and the engine read a policy alike', () => {
  const RETENTION_LUA = `${KEYS_LUA}${SAFE_INTEGER_LUA}${include('retention')}`;

  it('RETENTION_DEFAULTS are Defaults.completedRetention and Defaults.deadRetention', async () => {
    const script = `${RETENTION_LUA}
local out = {}
for _, kind in ipairs({ 'completed', 'dead' }) do
  out[#out + 1] = { RETENTION_DEFAULTS[kind].count, RETENTION_DEFAULTS[kind].ageMs }
end
return out`;
    expect(await engine.redis().eval(script, 0)).toEqual([
      [Defaults.completedRetention.count, Defaults.completedRetention.ageMs],
      [Defaults.deadRetention.count, Defaults.deadRetention.ageMs],
    ]);
  });

  it('retentionFrom (Lua) and retentionFrom (src/lanes/queue/state.ts) agree on any stored text', async () => {
    // Stored by setRetention, by hand or by another writer: every kind of text a field can hold.
    const RAW: (string | null)[] = [
      null,
      '',
      '0',
      '-0',
      '1',
      '3',
      '007',
      '-1',
      '1000000',
      '31536000000',
      '9007199254740991',
      '9007199254740992',
      '99999999999999999999',
      '00000000000000000000012',
      '1.5',
      '1e3',
      ' 5',
      '+5',
      '0x10',
      'none',
      'NONE',
      'lots',
    ];
    const cases: [string, string | null, string | null][] = [];
    for (const kind of ['completed', 'dead']) {
      for (const count of RAW) for (const age of RAW) cases.push([kind, count, age]);
    }
    // nil for a missing field is passed as the absence of a value: a flag per field.
    const script = `${RETENTION_LUA}
local out = {}
for i = 1, #ARGV, 5 do
  local count = ARGV[i + 1] == '1' and ARGV[i + 2] or nil
  local age = ARGV[i + 3] == '1' and ARGV[i + 4] or nil
  local c, a = retentionFrom(ARGV[i], count, age)
  out[#out + 1] = { c, a or false }
end
return out`;
    const args = cases.flatMap(([kind, count, age]) => [
      kind,
      count === null ? '0' : '1',
      count ?? '',
      age === null ? '0' : '1',
      age ?? '',
    ]);
    const lua = (await engine.redis().eval(script, 0, ...args)) as [number, number | null][];
    for (const [i, [kind, count, age]] of cases.entries()) {
      const defaults = kind === 'completed' ? Defaults.completedRetention : Defaults.deadRetention;
      const ts = retentionFrom(defaults, count, age);
      expect([ts.count, ts.ageMs], JSON.stringify([kind, count, age])).toEqual(lua[i]);
    }
  });
});

describe('smallCounts.lua and the small counts of parseLimit / parseActive', () => {
  it('COUNT_TEXT names 0..64 as string.format does, and nothing else', async () => {
    // The claim passes these texts to Redis as counts: a wrong entry would write a wrong number.
    const script = `${include('smallCounts')}
local out = {}
for n = -2, 66 do
  out[#out + 1] = COUNT_TEXT[n] or 'nil'
end
return out`;
    const reply = (await engine.redis().eval(script, 0)) as string[];
    const counts = Array.from({ length: 69 }, (_, i) => i - 2);
    expect(reply).toEqual(counts.map((n) => (n >= 0 && n <= 64 ? String(n) : 'nil')));
  });

  it('a one- or two-digit text is read as safeInteger reads it, whichever path answers', async () => {
    // Texts of one or two characters that tonumber reads, canonical or not, and their edges.
    const texts = [
      '0',
      '7',
      '9',
      '10',
      '42',
      '99',
      '100',
      '00',
      '01',
      '09',
      '1.',
      '.5',
      ' 5',
      '5 ',
      '+5',
      '-5',
      '-0',
      '1e1',
      '0x1',
      'a',
      '',
    ];
    const script = `${SAFE_INTEGER_LUA}${GROUP_STATE_LUA}
local out = {}
for i = 1, #ARGV do
  local limit, active = parseLimit(ARGV[i]), parseActive(ARGV[i])
  out[i] = { limit == nil and 'nil' or string.format('%d', limit),
    active == nil and 'nil' or string.format('%d', active) }
end
out[#out + 1] = { parseLimit(7) == nil and 'nil' or 'number', parseActive(7) == nil and 'nil' or 'number' }
return out`;
    const reply = (await engine.redis().eval(script, 0, ...texts)) as string[][];
    // safeInteger's grammar (its header): decimal digits with an optional '-'.
    const integer = (raw: string) => (/^-?\d+$/.test(raw) ? Number(raw) : null);
    expect(reply).toEqual([
      ...texts.map((t) => {
        const n = integer(t);
        return [
          n === null || n < 0 ? 'nil' : String(n),
          n === null ? 'nil' : String(Math.max(n, 0)),
        ];
      }),
      ['nil', 'nil'],
    ]);
  });
});

describe("safeInteger's fast path and the claim's attempts + 1 (fewer Lua calls)", () => {
  // Texts tonumber reads as a plain number though the grammar refuses them, and the edges of
  // the fast path (below 10^15) and of the exact path (2^53 − 1).
  const TEXTS = [
    '0',
    '7',
    '01',
    '-0',
    '+1',
    ' 1',
    '1 ',
    '1.0',
    '1.5',
    '0x10',
    '1e2',
    'nan',
    'inf',
    '',
    '-5',
    '999999999999999',
    '1000000000000000',
    '9007199254740991',
    '9007199254740992',
    '00009007199254740991',
    'abc',
  ];
  /** safeInteger by its header: decimal digits with an optional '-', within ±(2^53 − 1). */
  const expected = (raw: string) =>
    /^-?\d+$/.test(raw) && Math.abs(Number(raw)) <= Number.MAX_SAFE_INTEGER ? Number(raw) : null;

  it('safeInteger answers the grammar, whichever path answers', async () => {
    const script = `${SAFE_INTEGER_LUA}
local out = {}
for i = 1, #ARGV do
  local n = safeInteger(ARGV[i])
  out[i] = n == nil and 'nil' or string.format('%d', n)
end
out[#out + 1] = safeInteger(false) == nil and 'nil' or 'number'
return out`;
    const reply = (await engine.redis().eval(script, 0, ...TEXTS)) as string[];
    expect(reply).toEqual([...TEXTS.map((t) => String(expected(t) ?? 'nil')), 'nil']);
  });

  it.each([
    ['0', '1'],
    ['41', '42'],
    ['01', '2'],
    ['1e2', '1'],
    [' 5', '1'],
    ['-3', '-2'],
    ['999999999999999', '1000000000000000'],
    ['99999999999999999999', '100000000000000000000'],
  ])('a claim counts attempts %j up to %j', async (stored, next) => {
    const q = engine.queue();
    const { id } = await q.enqueue('g');
    await q.redis.hset(q.keys.job(id), 'attempts', stored);
    const job = await q.claim();
    expect(job?.id).toBe(id);
    expect(job?.attempts).toBe(Number(next));
    expect(await q.redis.hget(q.keys.job(id), 'attempts')).toBe(next);
  });
});

describe('overrideData.lua and parseOverride read a timed override alike (I6)', () => {
  const OVERRIDE_LUA = `${include('bounds')}${include('overrideData')}`;

  it('for any stored text: none, or the same until, setAt, revertTo (as the revert applies it) and actor', async () => {
    const data = (o: Record<string, unknown>) => JSON.stringify({ setAt: 5, actor: 'ann', ...o });
    const RAW: (string | null)[] = [
      null,
      '',
      'not json',
      'null',
      '5',
      '"text"',
      '[]',
      '[1, 2]',
      '{}',
      data({ until: 1_700_000_000_000, revertTo: 3 }),
      data({ until: 1_700_000_000_000, revertTo: 0 }),
      data({ until: 1_700_000_000_000, revertTo: null }),
      data({ until: 1_700_000_000_000 }),
      data({ until: 1_700_000_000_000, revertTo: true }),
      data({ until: 1_700_000_000_000, revertTo: false }),
      data({ until: 1_700_000_000_000, revertTo: 'ten' }),
      data({ until: 1_700_000_000_000, revertTo: '3' }),
      data({ until: 1_700_000_000_000, revertTo: -1 }),
      data({ until: 1_700_000_000_000, revertTo: 2.5 }),
      data({ until: 1_700_000_000_000, revertTo: 9007199254740991 }),
      data({ until: 1_700_000_000_000, revertTo: 9007199254740992 }),
      data({ until: 1_700_000_000_000, revertTo: 1, actor: 7 }),
      data({ until: 1_700_000_000_000, revertTo: {} }),
      data({ until: -5, revertTo: 1 }),
      data({ until: 0, revertTo: true, setAt: -1 }),
      data({ until: 1.5, revertTo: 1 }),
      data({ until: 1, revertTo: 1, setAt: 0.5 }),
      data({ until: '1', revertTo: 1 }),
      data({ until: null, revertTo: 1 }),
      data({ revertTo: 1 }),
      data({ until: 9007199254740991, revertTo: 1 }),
      data({ until: 9007199254740992, revertTo: 1 }),
      data({ until: -9007199254740991, revertTo: 1 }),
      '{"until": 1e3, "setAt": 2, "revertTo": 1e1}',
      '{"until": 1e300, "setAt": 2, "revertTo": 1}',
      '{"until": 10, "setAt": 2, "revertTo": 1, "until": 11}',
    ];
    const cases: ['limit' | 'pause', string | null][] = [];
    for (const kind of ['limit', 'pause'] as const) for (const raw of RAW) cases.push([kind, raw]);
    const script = `${OVERRIDE_LUA}
local out = {}
for i = 1, #ARGV, 3 do
  local o = overrideOf(ARGV[i], ARGV[i + 1] == '1' and ARGV[i + 2] or false)
  if o == nil then
    out[#out + 1] = false
  else
    local r = o.revertTo
    out[#out + 1] = { string.format('%d', o['until']), string.format('%d', o.setAt),
      type(r) == 'number' and string.format('%d', r) or cjson.encode(r), o.actor }
  end
end
return out`;
    const args = cases.flatMap(([kind, raw]) => [kind, raw === null ? '0' : '1', raw ?? '']);
    const lua = (await engine.redis().eval(script, 0, ...args)) as (
      | [string, string, string, string]
      | null
    )[];
    for (const [i, [kind, raw]] of cases.entries()) {
      const ts = parseOverride(kind, raw);
      expect(
        ts && [String(ts.until), String(ts.setAt), JSON.stringify(ts.revertTo), ts.actor],
        JSON.stringify([kind, raw]),
      ).toEqual(lua[i]);
    }
  });
});
