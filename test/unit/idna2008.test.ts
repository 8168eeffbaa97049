import { describe, expect, it } from 'vitest';
import { disallowedInLabel } from '../../src/engine/checks/idna2008.js';

describe('IDNA2008 code points (RFC 5892)', () => {
  it.each([
    ['bücher', 'letters (PVALID)'],
    ['例え', 'Han and Hiragana'],
    ['faß', 'ß, an exception kept PVALID (§2.6)'],
    ['ς', 'final sigma, an exception kept PVALID'],
    ['l·l', 'MIDDLE DOT between two l (A.3)'],
    ['α͵β', 'Greek numeral sign before Greek (A.4)'],
    ['א׳', 'Hebrew geresh after Hebrew (A.5)'],
    ['ア・イ', 'katakana middle dot beside katakana (A.7)'],
    ['١٢', 'Arabic-Indic digits of one kind (A.8)'],
    ['क्\u200d', 'ZERO WIDTH JOINER after a virama (A.2)'],
  ])('allows %s: %s', (label) => {
    expect(disallowedInLabel(label)).toBeNull();
  });

  it.each([
    ['a©b', '©', 'a symbol (not a letter or digit)'],
    ['😀', '😀', 'an emoji'],
    ['ｇｍａｉｌ', 'ｇ', 'full-width letters, changed by NFKC (§2.2)'],
    ['ⓐ', 'ⓐ', 'a circled letter, changed by NFKC'],
    ['ab·c', '·', 'MIDDLE DOT elsewhere than between two l'],
    ['a͵', '͵', 'Greek numeral sign before a Latin letter'],
    ['a׳', '׳', 'Hebrew geresh after a Latin letter'],
    ['a・b', '・', 'katakana middle dot with no kana or Han in the label'],
    ['١۱', '١', 'Arabic-Indic digits of both kinds'],
    ['a\u200db', '\u200d', 'ZERO WIDTH JOINER after a letter'],
    ['a\u00adb', '\u00ad', 'SOFT HYPHEN, default-ignorable (§2.3)'],
    ['ـ', 'ـ', 'ARABIC TATWEEL, an exception made DISALLOWED'],
    ['a\u0378', '\u0378', 'an unassigned code point'],
  ])('disallows %s (%s): %s', (label, culprit) => {
    expect(disallowedInLabel(label)).toBe(culprit);
  });
});
