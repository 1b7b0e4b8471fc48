/**
 * The look-alike rule of the console (console/src/format.ts re-exports it) and the CLI: an id that would
 * print like another is told apart. Each of five nonspacing marks that print as nothing after
 * "acme" (a variation selector, the combining grapheme joiner, a Khmer inherent vowel, a
 * Mongolian free variation selector, a supplementary variation selector) is a marker; NFC and
 * NFD "café" are drawn differently; and, over random ids made of such characters, two different
 * ids are never drawn alike.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
// The console takes these from console/src/format.ts, which re-exports this one file.
import { idParts, visibleId } from '../../src/cli/visibleText.js';

const ACME = ['\uFE0F', '\u034F', '\u17B5', '\u180B', '\u{E0100}'].map((mark) => `acme${mark}`);

describe('idParts / visibleId', () => {
  it('marks nonspacing marks that print as nothing', () => {
    expect(ACME.map(visibleId)).toEqual([
      'acme⟨U+FE0F⟩',
      'acme⟨U+034F⟩',
      'acme⟨U+17B5⟩',
      'acme⟨U+180B⟩',
      'acme⟨U+E0100⟩',
    ]);
    expect(idParts('acme\uFE0F')).toEqual([
      { text: 'acme' },
      { mark: 'U+FE0F', title: 'U+FE0F (invisible) in the id' },
    ]);
  });

  it('draws an id not in NFC apart from its NFC twin', () => {
    expect(visibleId('caf\u00E9')).toBe('caf\u00E9');
    expect(visibleId('cafe\u0301')).toBe('cafe⟨U+0301⟩');
    // Marks out of canonical order, a singleton NFC replaces, jamo NFC joins into a syllable.
    expect(visibleId('e\u0307\u0323')).toBe('e⟨U+0307⟩⟨U+0323⟩');
    expect(visibleId('\u212B')).toBe('⟨U+212B⟩');
    expect(visibleId('\u1100\u1161')).toBe('⟨U+1100⟩⟨U+1161⟩');
    expect(visibleId('\uAC00')).toBe('\uAC00');
  });

  it('marks a mark on nothing, a repeated mark, a run of spaces and the markers’ brackets', () => {
    expect(visibleId('\u0301x')).toBe('⟨U+0301⟩x');
    expect(visibleId('x\u0301')).toBe('x\u0301'); // NFC, drawn on its x
    expect(visibleId('x\u0301\u0301')).toBe('x\u0301⟨U+0301⟩');
    expect(visibleId('a  b')).toBe('a ⟨SP⟩b');
    expect(visibleId('⟨ZWSP⟩')).toBe('⟨U+27E8⟩ZWSP⟨U+27E9⟩');
  });

  /**
   * How a terminal or a browser draws text, roughly: nothing for a default-ignorable code point,
   * canonically equivalent text alike, a mark drawn twice over itself as once, a run of spaces
   * as one (HTML).
   */
  const looks = (text: string): string =>
    text
      .replace(/\p{Default_Ignorable_Code_Point}/gu, '')
      .normalize('NFC')
      .replace(/(\p{M})\1+/gu, '$1')
      .replace(/ +/g, ' ');

  it('never draws two different ids alike', () => {
    expect(looks('acme\uFE0F')).toBe(looks('acme')); // what the rule is for
    const tricky = [
      'a',
      'e',
      'x',
      ' ',
      '\u00E9',
      '\u0301',
      '\u0307',
      '\u0323',
      '\uFE0F',
      '\u034F',
      '\u17B5',
      '\u180B',
      '\u{E0100}',
      '\u200B',
      '\u00A0',
      '\u212B',
      '\u00C5',
      '\u1100',
      '\u1161',
      '\uAC00',
      '⟨',
      '⟩',
      'U',
      '+',
      '0',
    ];
    const id = fc.array(fc.constantFrom(...tricky), { maxLength: 6 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(id, id, (a, b) => a === b || looks(visibleId(a)) !== looks(visibleId(b))),
      { numRuns: 20_000 },
    );
  });
});
