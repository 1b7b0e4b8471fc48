/**
 * Arguments that are not UTF-8 (docs/cli.md; docs/server.md "Hardening"): Node decodes argv and the
 * environment lossily, each such byte becoming U+FFFD, so `pause $'\xff\xfe'` and
 * `pause $'\xfe\xff'` would both pause the group "\xef\xbf\xbd\xef\xbf\xbd". The CLI refuses any
 * argument, option value or option variable holding U+FFFD: a usage error, exit 1, one line
 * naming it and saying to pass the id as UTF-8; nothing is sent. The bytes are written by a
 * shell (`printf` with octal escapes), since child_process passes strings only.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { uniqueQueueName } from '../support/lanes.js';
import { useTestServer } from '../support/server.js';
import { type CliResult, finished } from './support.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = inject('cliBundle');

/**
 * `ringmaster <script>` through `sh -c`: `script` is the rest of the command line, shell words
 * (`pause "$(printf '\377\376')" -q Q`); `env` as the shell's own assignments (a byte's value).
 */
function shell(script: string, env = ''): Promise<CliResult> {
  const child = spawn('sh', ['-c', `${env} exec "$0" "$1" ${script}`, process.execPath, CLI], {
    cwd: ROOT,
    env: {
      ...Object.fromEntries(
        Object.entries(process.env).filter(([key]) => !key.startsWith('RINGMASTER_')),
      ),
      NO_COLOR: '1',
      RINGMASTER_URL: api.endpoint,
    },
  });
  child.stdin.end();
  return finished(child);
}

/** Exit 1, nothing on stdout, one line saying the argument is not UTF-8. */
function expectRefused(result: CliResult, what: RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^ringmaster: [^\n]+\n$/);
  expect(result.stderr).toMatch(what);
  expect(result.stderr).toMatch(
    /holds bytes that are not UTF-8 \(or a U\+FFFD replacement character\).*: (pass the id|set it) as UTF-8\n$/,
  );
}

describe('arguments that are not UTF-8', () => {
  it('are refused wherever they are — a group id, a queue, an option value — and nothing is sent', async () => {
    const q = uniqueQueueName('cli-bytes');
    const ff = `"$(printf '\\377\\376')"`;
    const fe = `"$(printf '\\376\\377')"`;
    for (const [script, what] of [
      [`pause ${ff} -q ${q}`, /^ringmaster: argument 2 \("\uFFFD\uFFFD"\) holds/],
      [`pause ${fe} -q ${q}`, /^ringmaster: argument 2 \("\uFFFD\uFFFD"\) holds/],
      [`limit ${ff} 3 -q ${q}`, /argument 2 /],
      [`group ${ff} -q ${q}`, /argument 2 /],
      [`pause g -q ${ff}`, /argument 4 /],
      [`pause g --queue=${q}${ff}`, /argument 3 /],
      [`history -q ${q} --group ${ff}`, /argument 5 /],
      [`pause g -q ${q} --token ${ff}`, /argument 6 /],
      // A U+FFFD written as UTF-8 cannot be told apart from a decoded byte: refused too.
      [`pause "$(printf '\\357\\277\\275')" -q ${q}`, /argument 2 /],
    ] as const) {
      expectRefused(await shell(script), what);
    }
    expectRefused(
      await shell('pause g', `RINGMASTER_QUEUE=${ff}`),
      /^ringmaster: RINGMASTER_QUEUE holds/,
    );
    expect(await api.server.engine.queue(q).known()).toBe(false);
    expect(await api.redis.client().keys('*\uFFFD*')).toEqual([]);
    // UTF-8 ids other than U+FFFD go through.
    const ok = await shell(`pause "$(printf '\\303\\251')" -q ${q}`);
    expect(ok.code, ok.stderr).toBe(0);
    expect(await api.server.engine.queue(q).paused()).toEqual(['é']);
  });
});
