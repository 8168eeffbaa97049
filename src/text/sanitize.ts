/**
 * Text that comes from elsewhere (an SMTP server's reply in a result's `reason`, a service's error
 * detail, a list's cells, a user's address) is shown through these functions, so that it cannot
 * drive the reader's terminal or spreadsheet. A remote MTA chooses its reply text freely: ESC
 * sequences could clear the screen or set the window title, OSC 8 hide a link, a C1 CSI (U+009B)
 * do the same in one byte, and backspaces overwrite `invalid` so that it reads `ok valid`.
 * Used by the CLI and the CSV writer; the dashboard escapes HTML separately. Imports nothing.
 */

/**
 * Characters never written raw to a terminal: C0 controls (tab and line breaks too: a reply is
 * shown on one line), DEL, C1 controls, the Unicode line and paragraph separators, the bidi
 * embeddings, overrides and isolates (which reorder what follows them on the line), and lone
 * surrogates (not text at all).
 */
const UNSAFE_FOR_TERMINAL =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `\x1b` for the controls that fit two hex digits, `\u{2028}` for the rest: visible, and what a programmer expects. */
function visible(character: string): string {
  const code = character.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/** `text` with every character that could act on a terminal shown as its escape (`\x1b[2J` stays readable, does nothing). */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE_FOR_TERMINAL, visible);
}

/**
 * Characters JSON.stringify leaves raw that still act on a terminal (DEL, the C1 controls such as
 * CSI U+009B) or end a line in JavaScript and some JSON-lines readers (U+2028/U+2029). They can
 * only stand inside JSON strings, where `\uXXXX` means the same character: parsers read the same value.
 */
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029]/g;

/** A JSON text (JSON.stringify's output) with the characters above written as `\uXXXX` escapes. */
export function jsonSafe(json: string): string {
  return json.replace(RAW_IN_JSON, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON.stringify for output a person may read on a terminal: one line, no raw control character. */
export function toSafeJson(value: unknown): string {
  return jsonSafe(JSON.stringify(value));
}

/**
 * The OWASP rule against CSV injection, for the cells we add to a CSV: a spreadsheet reads a cell
 * that begins with `=`, `+`, `-` or `@` (TAB and CR too, which some strip first) as a formula, so
 * such a cell gets a leading `'`, which spreadsheets show as text. Today every reason starts with
 * an SMTP code or our own words; this keeps a future or remote one from becoming a formula.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCellSafe(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}
