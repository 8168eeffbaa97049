/**
 * Files that are not UTF-8 text, told by their first bytes. Read as UTF-8 they come out as
 * replacement characters (a gzip printed 489 lines of them; a UTF-16 header became `"��e"`), so
 * they are named for what they are, with what to do instead.
 */
interface Signature {
  bytes: number[];
  what: string;
  /** What to do, given the file's name. */
  hint: (file: string) => string;
}

const saveAsUtf8 = (encoding: string) => (file: string) =>
  `save it as UTF-8 text (in Excel: "CSV UTF-8"), or convert it: iconv -f ${encoding} -t UTF-8 ${file} > list.csv`;
const decompress = (tool: string) => (file: string) => `decompress it first (${tool} -k ${file}) and give the list inside`;

/** Longer signatures first: UTF-32 LE starts with the UTF-16 LE mark. */
const SIGNATURES: Signature[] = [
  { bytes: [0xff, 0xfe, 0x00, 0x00], what: 'UTF-32 LE text (byte-order mark FF FE 00 00)', hint: saveAsUtf8('UTF-32') },
  { bytes: [0x00, 0x00, 0xfe, 0xff], what: 'UTF-32 BE text (byte-order mark 00 00 FE FF)', hint: saveAsUtf8('UTF-32') },
  { bytes: [0xff, 0xfe], what: 'UTF-16 LE text (byte-order mark FF FE)', hint: saveAsUtf8('UTF-16') },
  { bytes: [0xfe, 0xff], what: 'UTF-16 BE text (byte-order mark FE FF)', hint: saveAsUtf8('UTF-16') },
  { bytes: [0x1f, 0x8b], what: 'a gzip-compressed file', hint: decompress('gunzip') },
  {
    bytes: [0x50, 0x4b, 0x03, 0x04],
    what: 'a zip archive (an .xlsx workbook is one too)',
    hint: () => 'unzip it, or save the sheet as CSV UTF-8, and give that file',
  },
  { bytes: [0x50, 0x4b, 0x05, 0x06], what: 'an empty zip archive', hint: () => 'give the CSV or text list itself' },
  { bytes: [0x42, 0x5a, 0x68], what: 'a bzip2-compressed file', hint: decompress('bunzip2') },
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], what: 'an xz-compressed file', hint: decompress('unxz') },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0], what: 'an old Office document (.xls)', hint: () => 'save the sheet as CSV UTF-8 and give that file' },
  { bytes: [0x25, 0x50, 0x44, 0x46], what: 'a PDF document', hint: () => 'export the list as CSV or plain text' },
];

/** What the start of a file says it is when it is not a text list, or undefined when it may be one. */
export function notTextFile(start: Uint8Array, file: string): { what: string; hint: string } | undefined {
  const signature = SIGNATURES.find(({ bytes }) => bytes.every((byte, index) => start[index] === byte));
  if (signature) return { what: signature.what, hint: signature.hint(file) };
  const nul = start.indexOf(0);
  if (nul >= 0) {
    return {
      what: `a binary file, not text (a NUL byte at offset ${nul})`,
      hint: 'give a CSV or plain-text list in UTF-8; UTF-16 text without a byte-order mark looks like this too: save it as UTF-8',
    };
  }
  return undefined;
}
