/**
 * Text a caller chose (group ids, job ids, actors, errors) made visible: every character that
 * prints as nothing, or as a look-alike of a plain one, drawn as a marker (`acme⟨ZWSP⟩`), so
 * an id holding one never looks like the id without it. One rule for the console (its `Id`
 * component and plain text, through `console/src/format.ts`) and the CLI (`ringmaster groups`,
 * `dead`, `history`, `top`, the steering commands' lines; README "CLI"). Imports nothing, so
 * the console's bundle takes it as it is (scripts/build.mjs counts it among the console's
 * inputs).
 */

/**
 * Characters that print as nothing, or as a look-alike of a plain one: format characters (BOM
 * U+FEFF, zero-width space U+200B, joiners, bidi controls), controls, and spaces other than
 * U+0020. A group id holding one must not look like the id without it.
 */
const INVISIBLE =
  /[\p{Cf}\p{Cc}\p{Zl}\p{Zp}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u115F\u1160\u3164\uFFA0\u2800]/u;

const NAMES: Record<string, string> = {
  '\uFEFF': 'BOM',
  '\u200B': 'ZWSP',
  '\u200C': 'ZWNJ',
  '\u200D': 'ZWJ',
  '\u2060': 'WJ',
  '\u00A0': 'NBSP',
  '\u00AD': 'SHY',
  '\t': 'TAB',
};

/** One piece of an id as shown: plain text, or a marker standing for one invisible character. */
export type IdPart = { text: string } | { mark: string; title: string };

const codePoint = (ch: string): string =>
  `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Split `id` into plain text and markers: each invisible character becomes a marker (`BOM`,
 * `ZWSP`, else its code point), and so does a space at either end.
 */
export function idParts(id: string): IdPart[] {
  const parts: IdPart[] = [];
  let text = '';
  const chars = [...id];
  chars.forEach((ch, i) => {
    const edgeSpace = ch === ' ' && (i === 0 || i === chars.length - 1);
    if (INVISIBLE.test(ch) || edgeSpace) {
      if (text) parts.push({ text });
      text = '';
      const name = edgeSpace ? 'SP' : (NAMES[ch] ?? codePoint(ch));
      parts.push({ mark: name, title: `${codePoint(ch)} (invisible) in the id` });
    } else {
      text += ch;
    }
  });
  if (text) parts.push({ text });
  return parts;
}

/** `id` with each invisible character written as `⟨NAME⟩`, for titles and plain text. */
export const visibleId = (id: string): string =>
  idParts(id)
    .map((p) => ('text' in p ? p.text : `⟨${p.mark}⟩`))
    .join('');
