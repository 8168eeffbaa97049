/**
 * Just enough MIME (RFC 2045–2047) to read a bounce: headers, multipart bodies, transfer encodings
 * and charsets. Text arrives as a "binary" string (one char a byte, latin1), so a part is decoded by
 * its own charset only when its words are wanted. Broken structure is common in bounces (boundaries
 * that differ from the declared one, none at all): what cannot be split is read as one text.
 */

export interface Entity {
  /** Header fields by lower-cased name, unfolded, in order. */
  headers: Map<string, string[]>;
  /** The body as a binary string, lines ended by "\n". */
  body: string;
}

/** Headers and body of a message or part; line ends already "\n". */
export function parseEntity(text: string): Entity {
  const end = text.startsWith('\n') ? 0 : text.indexOf('\n\n');
  const head = end < 0 ? text : text.slice(0, end);
  const body = end < 0 ? '' : text.slice(end + (end === 0 ? 1 : 2));
  return { headers: parseHeaders(head), body };
}

const FIELD = /^([!-9;-~]+)[ \t]*:[ \t]?(.*)$/;

export function parseHeaders(head: string): Map<string, string[]> {
  const headers = new Map<string, string[]>();
  let last: { name: string; value: string } | null = null;
  const flush = () => {
    if (last === null) return;
    const values = headers.get(last.name) ?? [];
    values.push(last.value.trim());
    headers.set(last.name, values);
  };
  for (const line of head.split('\n')) {
    if (/^[ \t]/.test(line) && last !== null) {
      last.value += ` ${line.trim()}`;
      continue;
    }
    const match = FIELD.exec(line);
    if (!match) continue;
    flush();
    last = { name: match[1]!.toLowerCase(), value: match[2] ?? '' };
  }
  flush();
  return headers;
}

export function header(entity: Pick<Entity, 'headers'>, name: string): string | undefined {
  return entity.headers.get(name)?.[0];
}

/** A Content-Type's type (lower-cased) and parameters. */
export function contentType(entity: Pick<Entity, 'headers'>): { type: string; params: Map<string, string> } {
  const value = header(entity, 'content-type') ?? 'text/plain';
  const [type, ...rest] = value.split(';');
  const params = new Map<string, string>();
  for (const match of rest.join(';').matchAll(/([\w*-]+)\s*=\s*(?:"([^"]*)"|([^\s;]+))/g)) {
    params.set(match[1]!.toLowerCase(), match[2] ?? match[3] ?? '');
  }
  return { type: (type ?? '').trim().toLowerCase(), params };
}

/** The parts of a multipart body; an empty list when no boundary line is found. */
export function multipartParts(entity: Entity): Entity[] {
  const boundary = boundaryOf(entity);
  if (boundary === null) return [];
  const parts: Entity[] = [];
  let current: string[] | null = null;
  for (const line of entity.body.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === `--${boundary}` || trimmed === `--${boundary}--`) {
      if (current !== null) parts.push(parseEntity(current.join('\n')));
      current = trimmed.endsWith('--') && trimmed !== `--${boundary}` ? null : [];
      if (current === null) break;
      continue;
    }
    current?.push(line);
  }
  if (current !== null && current.length > 0) parts.push(parseEntity(current.join('\n')));
  return parts;
}

/** The declared boundary when the body uses it, else the first line that looks like one. */
function boundaryOf(entity: Entity): string | null {
  const declared = contentType(entity).params.get('boundary');
  if (declared !== undefined && declared !== '' && entity.body.includes(`--${declared}`)) return declared;
  return /^[ \t]*--([^\s]{6,}?)(?:--)?[ \t]*$/m.exec(entity.body)?.[1] ?? null;
}

/** A part's body as text: transfer encoding undone, charset decoded, HTML tags dropped. */
export function decodeText(entity: Entity): string {
  const encoding = (header(entity, 'content-transfer-encoding') ?? '').trim().toLowerCase();
  const bytes =
    encoding === 'base64'
      ? Buffer.from(entity.body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64')
      : Buffer.from(encoding === 'quoted-printable' ? decodeQuotedPrintable(entity.body) : entity.body, 'latin1');
  const { type, params } = contentType(entity);
  const text = decodeCharset(bytes, params.get('charset'));
  return type === 'text/html' ? htmlText(text) : text;
}

export function decodeQuotedPrintable(text: string): string {
  return text.replace(/=\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Bytes in a named charset; UTF-8 when none is named or the name is unknown and the bytes are valid UTF-8. */
export function decodeCharset(bytes: Buffer, charset: string | undefined): string {
  // ISO-2022-JP text is often sent without its charset named (or named us-ascii): its escapes tell.
  const escaped = (charset === undefined || /^(us-)?ascii$/i.test(charset)) && bytes.includes('\x1b$B');
  const label = escaped ? 'iso-2022-jp' : (charset ?? 'utf-8').trim().toLowerCase();
  try {
    return new TextDecoder(label, { fatal: label === 'utf-8' || label === 'us-ascii' }).decode(bytes);
  } catch {
    // Undeclared 8-bit text (or a label Node does not know) is most often Latin-1.
    return bytes.toString('latin1');
  }
}

function htmlText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<br\s*\/?>|<\/(p|div|tr|li|h\d)>/gi, '\n')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&');
}

/** A header value with RFC 2047 encoded words decoded (a Subject, to tell a delay warning). */
export function decodeWords(value: string): string {
  return value.replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_, charset: string, kind: string, data: string) => {
    const bytes = kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : Buffer.from(decodeQuotedPrintable(data.replace(/_/g, ' ')), 'latin1');
    return decodeCharset(bytes, charset);
  });
}
