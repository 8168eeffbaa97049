/** One SMTP reply, every line of a multi-line reply gathered (RFC 5321 §4.2.1). */
export interface SmtpReply {
  code: number;
  /** RFC 3463 enhanced status code ("5.1.1"), when the server sends one (RFC 2034). */
  enhanced: string | null;
  /** The text of every line, without the codes repeated on continuation lines, joined by spaces. */
  text: string;
  /** The text of each line as sent, without the reply code (EHLO lists one extension a line). */
  lines: readonly string[];
  /** `code enhanced text` on one line: what a result's `reason` quotes. */
  line: string;
}

/** `s`: a line may carry U+2028/U+2029 (or a stray CR), which `.` alone would not match. */
const REPLY_LINE = /^(\d{3})([ -])(.*)$/s;
/** RFC 2034's enhanced code after the reply code; some servers write it `#5.1.0`. */
const ENHANCED_CODE = /^#?([245]\.\d{1,3}\.\d{1,3})(?:\s+|$)/;

export class SmtpProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SmtpProtocolError';
  }
}

/** One reply line split into code, whether more lines follow, and its text. */
export function parseReplyLine(line: string): { code: number; more: boolean; text: string } {
  const match = REPLY_LINE.exec(line) ?? /^(\d{3})()$/.exec(line);
  if (!match) throw new SmtpProtocolError(`not an SMTP reply line: ${JSON.stringify(line.slice(0, 80))}`);
  return { code: Number(match[1]), more: match[2] === '-', text: match[3] ?? '' };
}

/** A whole reply from its lines (the last one without the "-" continuation mark). */
export function parseReply(lines: readonly string[]): SmtpReply {
  const parsed = lines.map(parseReplyLine);
  const code = parsed[0]?.code;
  if (code === undefined) throw new SmtpProtocolError('empty SMTP reply');
  if (parsed.some((part) => part.code !== code)) {
    throw new SmtpProtocolError(`SMTP reply mixes codes: ${lines.join(' | ').slice(0, 200)}`);
  }
  const enhanced = ENHANCED_CODE.exec(parsed[0]!.text)?.[1] ?? null;
  // Servers repeat the enhanced code on every line (Gmail's "550-5.1.1 ..."): keep it only once.
  const texts = parsed.map((part) => (enhanced !== null ? part.text.replace(ENHANCED_CODE, '') : part.text).trim());
  const text = texts.filter((part) => part !== '').join(' ');
  const line = [String(code), enhanced, text].filter((part) => part !== null && part !== '').join(' ');
  return { code, enhanced, text, lines: parsed.map((part) => part.text), line };
}
