/**
 * Text a caller chose (group ids, job ids, actors, errors) made visible: every character that
 * prints as nothing, or so that the text would print like another text, is drawn as a marker
 * (`acme⟨ZWSP⟩`, `cafe⟨U+0301⟩`), so two different ids never print alike (DESIGN.md §6, "CLI",
 * states the rule). One rule for the console (its `Id` component and plain text, through
 * `console/src/format.ts`) and the CLI (`ringmaster groups`, `dead`, `history`, `top`, the
 * steering commands' lines; docs/cli.md). Imports nothing, so the console's bundle takes it as
 * it is (scripts/build.mjs counts it among the console's inputs).
 */

/**
 * Characters that print as nothing, or as a look-alike of a plain one: the default-ignorable
 * code points (joiners, zero-width space, BOM, variation selectors, the combining grapheme
 * joiner, Hangul fillers, tags…), format characters and controls, line and paragraph
 * separators, spaces other than U+0020 (U+0020 has its own rule), and the blank braille cell.
 */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}\p{Zl}\p{Zp}\p{Zs}\u2800]/u;
/** Combining marks: drawn on the character before them. */
const MARK = /\p{M}/u;
/** Hangul conjoining jamo, which an id not in NFC may hold where its NFC form has a syllable. */
const JAMO = /[\u1100-\u11FF\uA960-\uA97F\uD7B0-\uD7FF]/;
/** A marker's own brackets: drawn as markers, so an id's text never spells a marker. */
const BRACKETS = new Set(['⟨', '⟩']);

const NAMES: Record<string, string> = {
  '\uFEFF': 'BOM',
  '\u200B': 'ZWSP',
  '\u200C': 'ZWNJ',
  '\u200D': 'ZWJ',
  '\u2060': 'WJ',
  '\u00A0': 'NBSP',
  '\u00AD': 'SHY',
  '\t': 'TAB',
  ' ': 'SP',
};

/** One piece of an id as shown: plain text, or a marker standing for one character. */
export type IdPart = { text: string } | { mark: string; title: string };

const codePoint = (ch: string): string =>
  `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Why `chars[i]` is drawn as a marker, or null when it prints as itself. `decomposed`: the id
 * is not in NFC; `marked`: whether the character before it was drawn as a marker.
 */
function reason(chars: string[], i: number, decomposed: boolean, marked: boolean): string | null {
  const ch = chars[i] as string;
  const before = chars[i - 1];
  if (ch === ' ') {
    if (i === 0 || i === chars.length - 1) return 'a space at an end';
    // A browser draws a run of spaces as one.
    return before === ' ' ? 'a space after a space' : null;
  }
  if (INVISIBLE.test(ch)) return 'invisible';
  if (BRACKETS.has(ch)) return 'a bracket of a marker';
  // An id not in NFC prints like its NFC form, a different id: its marks and the characters
  // NFC replaces (U+212B for Å, conjoining jamo for a syllable) are what tell them apart.
  if (decomposed && (MARK.test(ch) || JAMO.test(ch) || ch.normalize('NFC') !== ch)) {
    return 'not in NFC';
  }
  if (MARK.test(ch)) {
    if (before === undefined || before === ' ' || marked) return 'a mark on nothing';
    // Drawn over the same mark: it looks like one.
    if (before === ch) return 'a repeated mark';
  }
  return null;
}

/**
 * Split `id` into plain text and markers: each character the rule marks (see {@link reason})
 * becomes a marker (`BOM`, `ZWSP`, `SP`…, else its code point, `U+0301`), titled with its code
 * point and why.
 */
export function idParts(id: string): IdPart[] {
  const parts: IdPart[] = [];
  const chars = [...id];
  const decomposed = id.normalize('NFC') !== id;
  let text = '';
  let marked = false;
  chars.forEach((ch, i) => {
    const why = reason(chars, i, decomposed, marked);
    marked = why !== null;
    if (why === null) {
      text += ch;
      return;
    }
    if (text) parts.push({ text });
    text = '';
    parts.push({ mark: NAMES[ch] ?? codePoint(ch), title: `${codePoint(ch)} (${why}) in the id` });
  });
  if (text) parts.push({ text });
  return parts;
}

/** `id` with each marked character written as `⟨NAME⟩`, for titles and plain text. */
export const visibleId = (id: string): string =>
  idParts(id)
    .map((p) => ('text' in p ? p.text : `⟨${p.mark}⟩`))
    .join('');
