/**
 * Statements of the guides the fresh-user review found out of step with the code: the audit
 * finding's fields (docs/steering.md, "Audit and repair") against the schema's `Finding`, and
 * the console bundle's size (docs/console.md) under the build's chunk-size budget, so a first
 * `npm start` does not warn about a size the guide calls normal; the CLI's printed form of a
 * duration, and its auth exit code's statuses against `ringmaster --help` (docs/cli.md).
 */
import { readFileSync } from 'node:fs';
import { buildSchema, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import viteConfig from '../../console/vite.config.js';
import { Bounds } from '../../src/cli/bounds.js';
import { duration } from '../../src/cli/options.js';
import { durationText } from '../../src/cli/output.js';
import { runCli } from './support.js';

const read = (path: string): string => readFileSync(new URL(path, import.meta.url), 'utf8');
const steering = read('../../docs/steering.md');
const consoleGuide = read('../../docs/console.md');
const cli = read('../../docs/cli.md');

describe('the guides', () => {
  it('names an audit finding by the fields `Finding` has (kind, subject, expected, found)', () => {
    const finding = buildSchema(read('../../schema.graphql')).getType('Finding');
    if (!isObjectType(finding)) throw new Error('no Finding type in schema.graphql');
    const fields = Object.keys(finding.getFields()).sort();
    const sentence = /reports every such finding — ([\s\S]*?) — and writes nothing/.exec(
      steering,
    )?.[1];
    expect(sentence).toBeDefined();
    const named = [...(sentence ?? '').matchAll(/`(\w+)`\s\(|`(\w+)`(?:,|\s—|$)/g)]
      .map(([, a, b]) => a ?? b)
      .filter((name): name is string => name !== undefined && /^[a-z]/.test(name));
    expect(named.sort()).toEqual(fields);
  });

  it('gives a console bundle size within the build’s chunk-size budget (no warning at npm start)', () => {
    const minified = /\((\d+) KB minified\)/.exec(consoleGuide)?.[1];
    expect(minified).toBeDefined();
    const config =
      typeof viteConfig === 'function'
        ? viteConfig({ command: 'build', mode: 'production' })
        : viteConfig;
    const budget = (config as { build?: { chunkSizeWarningLimit?: number } }).build
      ?.chunkSizeWarningLimit;
    expect(budget).toBeGreaterThan(Number(minified));
  });

  it('says how durations are printed as the CLI prints them (`--for 1h30m` → `for 1h 30m`)', () => {
    const [, given, other, printed] =
      /`--for (\S+)` and `--for\s+(\S+)` both print `for ([^`]+)`/.exec(cli) ?? [];
    expect(printed).toBeDefined();
    const parse = duration('--for', Bounds.for);
    expect(durationText(parse(given ?? ''))).toBe(printed);
    expect(durationText(parse(other ?? ''))).toBe(printed);
  });

  it('lists the auth exit code with the same statuses as `ringmaster --help` (3: HTTP and WebSocket)', async () => {
    const row = /^\| 3 {4}\| auth: [^|]*\(([^)]+)\)\s*\|$/m.exec(cli)?.[1];
    expect(row).toBe('HTTP 401, 403; WebSocket 4401, 4403');
    const help = (await runCli(['--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain(
      `3 auth: no token, an unknown one, or a role that may not do this (${row})`,
    );
  });
});
