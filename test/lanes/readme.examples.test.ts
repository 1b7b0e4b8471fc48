/**
 * The documentation's code examples that create an ioredis client (README.md, docs/*.md) each
 * attach an 'error' listener to it: without one, ioredis prints "[ioredis] Unhandled error
 * event" on every reconnect attempt while Redis is down (about once a second), and a reader who
 * copies the example gets that noise (the fresh-user review, item 5).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const files = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Every fenced TypeScript/JavaScript block of `file`, with the line it starts on. */
function codeBlocks(file: string): { line: number; code: string }[] {
  const text = readFileSync(new URL(file, root), 'utf8');
  return [...text.matchAll(/^```(?:ts|typescript|js|javascript|mjs)\n([\s\S]*?)^```/gm)].map(
    (match) => ({
      line: text.slice(0, match.index).split('\n').length,
      code: match[1] ?? '',
    }),
  );
}

const clients = files.flatMap((file) =>
  codeBlocks(file).flatMap(({ line, code }) =>
    [...code.matchAll(/\b(?:const|let)\s+(\w+)\s*=\s*new\s+(?:Redis|Cluster)\(/g)].map(
      ([, name]) => ({ where: `${file}:${line}`, name: name as string, code }),
    ),
  ),
);

describe('documentation examples', () => {
  it('create at least one ioredis client (the check below has something to check)', () => {
    expect(clients.length).toBeGreaterThan(0);
  });

  it.each(clients.map((c) => [`${c.where} (${c.name})`, c] as const))(
    "%s listens for the client's 'error' events",
    (_where, { name, code }) => {
      expect(code).toMatch(new RegExp(`\\b${name}\\.on\\(\\s*['"]error['"]`));
    },
  );
});
