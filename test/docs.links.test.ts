/**
 * Every relative link of README.md and docs/*.md points at a file that exists, and a link's
 * `#anchor` at a heading of its target (or of its own page), as GitHub renders them: the
 * heading's text, without Markdown, lower-cased, with punctuation dropped and spaces turned to
 * hyphens, `-1`, `-2`… after a repeat. Links in code (fenced blocks, `inline`) are not links.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));
const pages = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text of a Markdown page without its fenced code blocks. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** A heading's anchor as GitHub makes it. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor the headings of `file` make. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of prose(readFileSync(file, 'utf8')).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = slug(heading as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

/** Every relative link of `page`: its target and where it is. */
function links(page: string): { target: string; line: number }[] {
  const text = prose(readFileSync(path.join(root, page), 'utf8'));
  const found: { target: string; line: number }[] = [];
  text.split('\n').forEach((line, i) => {
    const bare = line.replace(/`[^`]*`/g, '');
    for (const [, target] of bare.matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target as string)) continue; // https:, mailto:
      found.push({ target: target as string, line: i + 1 });
    }
  });
  return found;
}

const all = pages.flatMap((page) => links(page).map((link) => ({ page, ...link })));

describe('links in README.md and docs/*.md', () => {
  it('there are relative links to check, README.md to docs/ and back', () => {
    expect(all.filter((l) => l.page === 'README.md').length).toBeGreaterThan(10);
    expect(all.some((l) => l.page.startsWith('docs/') && l.target.startsWith('../'))).toBe(true);
  });

  it('makes anchors as GitHub does', () => {
    expect(slug('4.1 Engine')).toBe('41-engine');
    expect(slug("A Redis that lost a queue's state")).toBe('a-redis-that-lost-a-queues-state');
    expect(slug('Timed overrides: a limit, a pause or a resume for a while')).toBe(
      'timed-overrides-a-limit-a-pause-or-a-resume-for-a-while',
    );
    expect(slug('The `ringmaster` CLI')).toBe('the-ringmaster-cli');
  });

  it.each(all.map((l) => [`${l.page}:${l.line} → ${l.target}`, l] as const))(
    '%s',
    (_name, { page, target }) => {
      const [file = '', anchor] = target.split('#');
      const resolved =
        file === '' ? path.join(root, page) : path.join(root, path.dirname(page), decodeURI(file));
      expect(existsSync(resolved), `${resolved} does not exist`).toBe(true);
      if (anchor === undefined || !resolved.endsWith('.md') || statSync(resolved).isDirectory())
        return;
      expect([...anchors(resolved)], `no heading makes #${anchor}`).toContain(anchor);
    },
  );
});
