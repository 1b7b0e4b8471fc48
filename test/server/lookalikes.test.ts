/**
 * Which variable names are taken for a misspelling of a known one (DESIGN.md §6, "Look-alike
 * variables"), on the pure function `config.ts` hands the names to. The server's warning
 * lines are test/server/operatorSettings.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { editDistance, lookalikes } from '../../src/lookalikes.js';

const KNOWN = ['PORT', 'HOST', 'REDIS_URL', 'AUTH_TOKENS', 'RINGMASTER_URL'];

describe('look-alike variables', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('PROT', 'PORT')).toBe(1);
    expect(editDistance('REDIS_ULR', 'REDIS_URL')).toBe(1);
    expect(editDistance('HOME', 'HOST')).toBe(2);
  });

  it('takes a swap in a short name for the name, and a name two edits off a short one for none', () => {
    expect(lookalikes(['PROT', 'HOME', 'HSOT'], KNOWN)).toEqual([
      { variable: 'PROT', meant: 'PORT' },
      { variable: 'HSOT', meant: 'HOST' },
    ]);
  });

  it('takes two edits in a longer name, another case, and any other RINGMASTER_*', () => {
    expect(
      lookalikes(
        ['REDIS_ULR', 'AUTH_TOKEN', 'redis_url', 'RINGMASTER_PORT', 'RINGMASTER_URL'],
        KNOWN,
      ),
    ).toEqual([
      { variable: 'REDIS_ULR', meant: 'REDIS_URL' },
      { variable: 'AUTH_TOKEN', meant: 'AUTH_TOKENS' },
      { variable: 'redis_url', meant: 'REDIS_URL' },
      { variable: 'RINGMASTER_PORT', meant: 'PORT' },
    ]);
  });
});
