/**
 * Look-alike variables (DESIGN.md §6, "Look-alike variables"): a variable that looks like one
 * of the CLI's three (`RINGMASTER_URL`, `RINGMASTER_TOKEN`, `RINGMASTER_QUEUE`) but is none is
 * named on stderr, once, with the one meant; the command runs and exits as it would without it.
 * Before, `RINGMASTER_ULR=…` queried the default server in silence.
 */
import { describe, expect, it } from 'vitest';
import { closedPort } from '../support/closedPort.js';
import { finished, spawnCli } from './support.js';

const warning = (variable: string, meant: string): string =>
  `ringmaster: ${variable} is set, but ringmaster reads no such variable: did you mean ${meant}?\n`;

describe('variables that look like the CLI’s', () => {
  it('are each named once with the one meant, and the exit code is unchanged', async () => {
    const args = ['status', '--url', `http://127.0.0.1:${await closedPort()}`];
    const plain = await finished(spawnCli(args));
    const misspelt = await finished(
      spawnCli(args, {
        RINGMASTER_ULR: 'http://127.0.0.1:4000',
        RINGMASTER_TOKN: 'x',
        RINGMASTR_QUEUE: 'orders',
        RINGMASTER_PORT: '4000',
      }),
    );
    expect(misspelt.code).toBe(plain.code);
    expect(plain.stderr).not.toContain('no such variable');
    const lines = misspelt.stderr.split(/(?<=\n)/);
    for (const line of [
      warning('RINGMASTER_ULR', 'RINGMASTER_URL'),
      warning('RINGMASTER_TOKN', 'RINGMASTER_TOKEN'),
      warning('RINGMASTR_QUEUE', 'RINGMASTER_QUEUE'),
      warning('RINGMASTER_PORT', 'RINGMASTER_URL'),
    ]) {
      expect(lines.filter((l) => l === line)).toHaveLength(1);
    }
    expect(misspelt.stderr.endsWith(plain.stderr)).toBe(true);
  });

  it('says nothing of the three themselves', async () => {
    const result = await finished(
      spawnCli(['--version'], { RINGMASTER_QUEUE: 'orders', RINGMASTER_TOKEN: 'x' }),
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
  });
});
