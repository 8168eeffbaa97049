import { Readable } from 'node:stream';
import type { Verdict } from '../../engine/core/types.js';
import { ProblemError } from '../http/errors.js';
import type { JobProgress, JobStore } from '../store/store.js';

/**
 * `GET /v1/bulk-verify/{id}` as a stream: the body is written page by page from the store, so a
 * 50,000-result job is never one string in memory, and each page is a short read that lets other
 * requests run between pages. The results go out as stored (the interface's JSON objects).
 */

/**
 * Results read from the store at once: about 30 KB of JSON. Small on purpose: the rows of a page
 * live until their last piece is sent, long enough for V8 to move them to the old generation,
 * which grows until a full collection; with pages of 1,000 rows a 15 MB answer grew the peak RSS
 * by 20 MB, with 100 by 1-5 MB.
 */
const PAGE_ROWS = 100;
/**
 * The body goes out in pieces of about this many characters: small enough to stay out of V8's
 * large-object space (which only a full collection empties) and to be sent as it is made.
 */
const CHUNK_CHARS = 16 * 1024;

/** The page size of a request with a cursor but no limit. */
const DEFAULT_PAGE_RESULTS = 1_000;

export interface ResultsQuery {
  result?: string;
  limit?: string;
  cursor?: string;
}

interface Selection {
  verdicts?: Verdict[];
  /** A page size: the answer is one page with `next_cursor`. Undefined for all results, the contract's shape. */
  limit?: number;
  /** The position the page starts after. */
  after: number;
}

/** A cursor names the last position of a page; opaque to clients. */
const encodeCursor = (position: number) => Buffer.from(`p${position}`).toString('base64url');

function decodeCursor(cursor: string): number {
  const position = /^p(0|[1-9][0-9]{0,8})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'))?.[1];
  if (position === undefined) throw new ProblemError('invalid_request', 'The cursor is not one this service gave out; start again without it.');
  return Number(position);
}

/** The query, already checked against the route's schema, as what to send. */
export function selectionOf(query: ResultsQuery): Selection {
  const paged = query.limit !== undefined || query.cursor !== undefined;
  return {
    verdicts: query.result === undefined ? undefined : ([...new Set(query.result.split(','))] as Verdict[]),
    limit: paged ? Number(query.limit ?? DEFAULT_PAGE_RESULTS) : undefined,
    after: query.cursor === undefined ? -1 : decodeCursor(query.cursor),
  };
}

const field = (name: string, value: unknown) => `${JSON.stringify(name)}:${JSON.stringify(value)}`;

/**
 * The job's body: `{id, total, results, status, processed}` (and `next_cursor` for a page). Keys
 * in JSON have no order, and `results` comes before the counts so that, for all results, the counts
 * are those of the results sent (results keep arriving while it is written: the job's own counts,
 * read first, could disagree with the list). A filtered or paged answer gives the job's counts.
 */
async function* jobBody(jobs: JobStore, job: JobProgress, selection: Selection): AsyncGenerator<string> {
  const { verdicts, limit } = selection;
  const wanted = limit ?? Number.POSITIVE_INFINITY;
  let after = selection.after;
  let sent = 0;
  /** Of those, addresses still waiting for their next try: not settled, so not processed. */
  let waiting = 0;
  /** Whether results follow the last one sent: a paged answer's last read asks for one row more to know. */
  let more = false;
  let chunk = `{${field('id', job.id)},${field('total', job.total)},"results":[`;
  while (sent < wanted) {
    const pageRows = Math.min(PAGE_ROWS, wanted - sent);
    const lastRead = limit !== undefined && pageRows === wanted - sent;
    const rows = await jobs.readResults(job.id, { after, limit: lastRead ? pageRows + 1 : pageRows, verdicts });
    more = rows.length > pageRows;
    const page = more ? rows.slice(0, pageRows) : rows;
    for (const row of page) {
      chunk += sent > 0 ? `,${row.json}` : row.json;
      sent += 1;
      if (row.waiting) waiting += 1;
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
    if (page.length > 0) after = page.at(-1)!.position;
    if (page.length < pageRows) break;
  }
  const whole = limit === undefined && verdicts === undefined;
  const processed = whole ? sent - waiting : job.processed;
  const status = whole ? (processed >= job.total ? 'completed' : 'processing') : job.status;
  let tail = `${chunk}],${field('status', status)},${field('processed', processed)}`;
  if (limit !== undefined) tail += `,${field('next_cursor', more ? encodeCursor(after) : null)}`;
  yield `${tail}}`;
}

export function jobResultsStream(jobs: JobStore, job: JobProgress, selection: Selection): Readable {
  return Readable.from(jobBody(jobs, job, selection), { objectMode: false });
}
