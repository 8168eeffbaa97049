import { parse } from 'csv-parse';
import { Readable } from 'node:stream';
import { evidenceAddress, isoTime, makeEvent, skipped, type EvidenceKind, type EvidenceRead } from './event.js';
import type { Chunks } from './stream.js';

/** The words a CSV's event column may use for each kind. */
const KIND_WORDS: Record<string, EvidenceKind> = {
  bounce: 'bounce',
  bounced: 'bounce',
  hard_bounce: 'bounce',
  hardbounce: 'bounce',
  delivery: 'delivery',
  delivered: 'delivery',
  sent: 'delivery',
  complaint: 'complaint',
  complained: 'complaint',
  spamreport: 'complaint',
  deferral: 'deferral',
  deferred: 'deferral',
  delayed: 'deferral',
};

const COLUMNS = { email: ['email', 'address', 'recipient'], event: ['event', 'kind', 'type'], at: ['at', 'time', 'timestamp', 'date'] };

type Parsed = { record: string[]; info: { lines: number } };

/** A CSV of `email,event,at[,status,diagnostic]` with a header row, streamed a record at a time. */
export async function* csvEvents(file: string, input: Chunks, source: string): AsyncGenerator<EvidenceRead> {
  const parser = Readable.from(binaryBuffers(input)).pipe(
    parse({ bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, trim: true, info: true, skip_records_with_error: true }),
  );
  // A record csv-parse cannot read (a quote never closed) is named and passed over, not the end of the import.
  const broken: EvidenceRead[] = [];
  parser.on('skip', (error: Error & { lines?: number }) => {
    broken.push(skipped(file, error.lines === undefined ? 'file' : `line ${error.lines}`, `not CSV: ${error.message}`));
  });
  let columns: Map<string, number> | null = null;
  for await (const { record, info } of parser as AsyncIterable<Parsed>) {
    yield* broken.splice(0);
    const where = `line ${info.lines}`;
    if (columns === null) {
      columns = new Map(record.map((name, index) => [name.toLowerCase(), index]));
      const missing = Object.entries(COLUMNS).filter(([, names]) => !names.some((name) => columns!.has(name)));
      if (missing.length > 0) {
        yield skipped(file, where, `the header row names no ${missing.map(([name]) => name).join(', ')} column (email,event,at[,status,diagnostic])`);
        return;
      }
      continue;
    }
    yield csvRecord(record, columns, { file, where, source });
  }
  yield* broken.splice(0);
}

function csvRecord(record: string[], columns: Map<string, number>, place: { file: string; where: string; source: string }): EvidenceRead {
  const cell = (names: string[]) => {
    const index = names.map((name) => columns.get(name)).find((found) => found !== undefined);
    return index === undefined ? '' : (record[index] ?? '');
  };
  const email = evidenceAddress(cell(COLUMNS.email));
  if (email === null) return skipped(place.file, place.where, `${JSON.stringify(cell(COLUMNS.email))} is not an address`);
  const kind = KIND_WORDS[cell(COLUMNS.event).toLowerCase()];
  if (kind === undefined)
    return skipped(place.file, place.where, `event ${JSON.stringify(cell(COLUMNS.event))} is none of bounce, delivery, complaint, deferral`);
  const rawAt = cell(COLUMNS.at);
  const at = /^\d{9,10}(\.\d+)?$/.test(rawAt) ? isoTime(Number(rawAt) * 1000) : isoTime(rawAt);
  if (at === null) return skipped(place.file, place.where, `at ${JSON.stringify(rawAt)} is not a time`);
  const status = /^[245]\.\d{1,3}\.\d{1,3}$/.exec(cell(['status']))?.[0];
  const diagnostic = cell(['diagnostic', 'reason', 'response']);
  return { event: makeEvent({ email, kind, at, status, diagnostic, source: place.source }) };
}

async function* binaryBuffers(input: Chunks): AsyncGenerator<Buffer> {
  for await (const chunk of input) yield Buffer.from(chunk, 'latin1');
}
