import { readdir, stat } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { skipped, type EvidenceRead } from './event.js';
import { csvEvents } from './csv-events.js';
import { detectFormat, formatOfContentType } from './detect.js';
import { jsonEvents } from './json-file.js';
import { logLineEvents } from './logs.js';
import { MESSAGE_LIMIT, mboxMessages } from './mbox.js';
import { readMessage } from './bounce.js';
import { binaryChunks, lines, peek, utf8, type Chunks } from './stream.js';

export { eventFromJson } from './json-events.js';

/** Bytes looked at to tell a stream's format. */
const HEAD_SIZE = 64 * 1024;

interface ReadOptions {
  contentType?: string;
  source?: string;
  /** The time of events that carry none (a message without a Date): a file's time, else now. */
  fallbackAt?: string;
}

/** Reads a file, a Maildir folder (cur/ new/) or a folder of such files, telling each file's format by content, streaming. */
export async function* readEvidencePath(path: string, options: { source?: string } = {}): AsyncGenerator<EvidenceRead> {
  for (const file of await filesOf(path)) {
    const info = await stat(file);
    yield* readEvidenceStream(file, createReadStream(file, { highWaterMark: 256 * 1024 }), { ...options, fallbackAt: info.mtime.toISOString() });
  }
}

/** The files a path names: itself, or a folder's files in name order (a Maildir's cur/ and new/, never tmp/ or dot-files). */
async function filesOf(path: string): Promise<string[]> {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const entries = (await readdir(path, { withFileTypes: true })).filter((entry) => !entry.name.startsWith('.') && entry.name !== 'tmp');
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const files: string[] = [];
  for (const entry of entries) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) files.push(...(await filesOf(full)));
    else if (entry.isFile()) files.push(full);
  }
  return files;
}

/** Reads one stream whose name is only used in skip messages; contentType hint optional ('message/rfc822' | 'application/mbox' | 'application/json' | 'text/csv'). */
export async function* readEvidenceStream(name: string, input: AsyncIterable<Buffer | string>, options: ReadOptions = {}): AsyncGenerator<EvidenceRead> {
  const { head, chunks } = await peek(binaryChunks(input), HEAD_SIZE);
  if (head.trim() === '') {
    yield skipped(name, 'file', 'empty');
    return;
  }
  const hinted = formatOfContentType(options.contentType);
  // A message sent with its mbox "From " line is an mbox of one.
  const format = hinted === 'message' && head.startsWith('From ') ? 'mbox' : (hinted ?? detectFormat(head));
  const fallbackAt = options.fallbackAt ?? new Date().toISOString();
  if (format === 'message') yield* messageEvents(name, chunks, options.source ?? 'dsn', fallbackAt);
  else if (format === 'mbox') yield* mboxEvents(name, chunks, options.source ?? 'dsn', fallbackAt);
  else if (format === 'json') yield* jsonEvents(name, chunks, options.source);
  else if (format === 'csv') yield* csvEvents(name, chunks, options.source ?? 'csv');
  else if (format === 'log') yield* logEvents(name, chunks, options.source);
  else yield skipped(name, 'file', 'not a format evidence is read from (a mail message, mbox, MTA log, ESP JSON or CSV)');
}

async function* messageEvents(name: string, chunks: Chunks, source: string, fallbackAt: string): AsyncGenerator<EvidenceRead> {
  let raw = '';
  for await (const chunk of chunks) {
    raw += chunk;
    if (raw.length > MESSAGE_LIMIT) {
      yield skipped(name, 'message 1', `larger than ${MESSAGE_LIMIT / 1024 / 1024} MB`);
      return;
    }
  }
  yield* readingOf(name, 'message 1', raw, source, fallbackAt);
}

async function* mboxEvents(name: string, chunks: Chunks, source: string, fallbackAt: string): AsyncGenerator<EvidenceRead> {
  let count = 0;
  for await (const message of mboxMessages(chunks)) {
    count += 1;
    const where = `message ${message.number}`;
    if (message.raw === null) yield skipped(name, where, `larger than ${MESSAGE_LIMIT / 1024 / 1024} MB`);
    else yield* readingOf(name, where, message.raw, source, message.separatorDate ?? fallbackAt);
  }
  if (count === 0) yield skipped(name, 'file', 'an mbox without a "From " line starting a message');
}

function* readingOf(name: string, where: string, raw: string, source: string, fallbackAt: string): Generator<EvidenceRead> {
  let reading: ReturnType<typeof readMessage>;
  try {
    reading = readMessage(raw, { source, fallbackAt });
  } catch (error) {
    // Bad content is a skip, never the end of an import: whatever a message holds, the next is read.
    reading = { why: `could not be read: ${error instanceof Error ? error.message : String(error)}` };
  }
  if ('why' in reading) yield skipped(name, where, reading.why);
  else for (const event of reading.events) yield { event };
}

async function* logEvents(name: string, chunks: Chunks, source: string | undefined): AsyncGenerator<EvidenceRead> {
  const now = new Date();
  for await (const { line, number } of lines(chunks)) {
    const read = logLineEvents(utf8(line), source, now);
    if (typeof read === 'string') yield skipped(name, `line ${number}`, read);
    else for (const event of read ?? []) yield { event };
  }
}
