/**
 * IDNA2008's rule for which code points a domain label may hold (RFC 5892 §3, the derived
 * property), computed from the Unicode properties the JavaScript engine knows. Node's
 * `url.domainToASCII` follows UTS #46, which maps and accepts symbols IDNA2008 disallows (`©`,
 * emoji): an address at such a domain is refused by registries and by strict MTAs.
 *
 * No npm package computes IDNA2008's derived property (tr46 and idna-uts46-hx implement UTS #46,
 * the lenient one), so the rules of RFC 5892 §2-3 are written out here, in its order:
 * exceptions, unassigned, LDH, joiners, old Hangul jamo, unstable, ignorable, then letters and
 * digits. Contextual rules (RFC 5892 Appendix A) are checked for the CONTEXTO code points and,
 * simplified, for the joiners: allowed after a combining mark (the virama rule, without the
 * joining-type rule for ZWNJ). The Bidi rule (RFC 5893) is not checked.
 */

type Derived = 'PVALID' | 'CONTEXTJ' | 'CONTEXTO' | 'DISALLOWED';

/** RFC 5892 §2.6: code points whose value is fixed whatever their properties. */
const EXCEPTIONS = new Map<number, Derived>([
  [0x00df, 'PVALID'], // ß
  [0x03c2, 'PVALID'], // ς
  [0x06fd, 'PVALID'],
  [0x06fe, 'PVALID'],
  [0x0f0b, 'PVALID'],
  [0x3007, 'PVALID'],
  [0x00b7, 'CONTEXTO'], // MIDDLE DOT (Catalan l·l)
  [0x0375, 'CONTEXTO'], // GREEK LOWER NUMERAL SIGN
  [0x05f3, 'CONTEXTO'], // HEBREW PUNCTUATION GERESH
  [0x05f4, 'CONTEXTO'], // HEBREW PUNCTUATION GERSHAYIM
  [0x30fb, 'CONTEXTO'], // KATAKANA MIDDLE DOT
  ...[0x0640, 0x07fa, 0x302e, 0x302f, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303b].map((cp): [number, Derived] => [cp, 'DISALLOWED']),
  ...range(0x0660, 0x0669).map((cp): [number, Derived] => [cp, 'CONTEXTO']), // ARABIC-INDIC DIGITS
  ...range(0x06f0, 0x06f9).map((cp): [number, Derived] => [cp, 'CONTEXTO']), // EXTENDED ARABIC-INDIC DIGITS
]);

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

const UNASSIGNED = /^\p{Cn}$/u;
const LDH = /^[a-z0-9-]$/;
const JOINERS = new Set([0x200c, 0x200d]);
/** Conjoining Hangul jamo (Hangul_Syllable_Type L, V, T), which JavaScript regexes cannot name. */
const OLD_HANGUL_JAMO = /^[\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff]$/u;
/** RFC 5892 §2.3-2.4: default-ignorable, white space, noncharacters, and three blocks of symbols. */
const IGNORABLE = /^[\p{Default_Ignorable_Code_Point}\p{White_Space}\p{Noncharacter_Code_Point}\u20d0-\u20ff\u{1d100}-\u{1d24f}]$/u;
const LETTER_DIGIT = /^[\p{Ll}\p{Lu}\p{Lo}\p{Nd}\p{Lm}\p{Mn}\p{Mc}]$/u;
const COMBINING_MARK = /^\p{M}$/u;

/** RFC 5892 §2.2: a code point that NFKC and case folding change cannot stand in a label. */
function isUnstable(char: string): boolean {
  return char.normalize('NFKC').toLowerCase().normalize('NFKC') !== char;
}

function derivedProperty(char: string): Derived {
  const cp = char.codePointAt(0)!;
  const exception = EXCEPTIONS.get(cp);
  if (exception) return exception;
  if (UNASSIGNED.test(char)) return 'DISALLOWED';
  if (LDH.test(char)) return 'PVALID';
  if (JOINERS.has(cp)) return 'CONTEXTJ';
  if (OLD_HANGUL_JAMO.test(char) || isUnstable(char) || IGNORABLE.test(char)) return 'DISALLOWED';
  return LETTER_DIGIT.test(char) ? 'PVALID' : 'DISALLOWED';
}

/** RFC 5892 Appendix A for the character at `index` of `chars`. */
function contextHolds(chars: readonly string[], index: number): boolean {
  const cp = chars[index]!.codePointAt(0)!;
  const before = chars[index - 1] ?? '';
  const after = chars[index + 1] ?? '';
  switch (cp) {
    case 0x200c:
    case 0x200d:
      return COMBINING_MARK.test(before);
    case 0x00b7:
      return before === 'l' && after === 'l';
    case 0x0375:
      return /^\p{Script=Greek}$/u.test(after);
    case 0x05f3:
    case 0x05f4:
      return /^\p{Script=Hebrew}$/u.test(before);
    case 0x30fb:
      return chars.some((char) => /^[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]$/u.test(char));
    default: {
      // Arabic-Indic digits of one kind only: never mixed with the extended ones in a label.
      const other = cp <= 0x0669 ? /[\u06f0-\u06f9]/ : /[\u0660-\u0669]/;
      return !chars.some((char) => other.test(char));
    }
  }
}

/** The first character of a Unicode label that IDNA2008 does not allow there, or null. */
export function disallowedInLabel(label: string): string | null {
  const chars = [...label];
  for (const [index, char] of chars.entries()) {
    const derived = derivedProperty(char);
    if (derived === 'PVALID') continue;
    if (derived !== 'DISALLOWED' && contextHolds(chars, index)) continue;
    return char;
  }
  return null;
}
