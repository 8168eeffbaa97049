/**
 * Streams as evidence readers take them: chunks as "binary" strings (one char a byte), so no
 * multi-byte character is ever split across chunks, decoded per format once a line or part is whole.
 */

export type Chunks = AsyncIterable<string>;

/** Buffers and strings as binary strings; a string given as text is encoded as UTF-8 first. */
export async function* binaryChunks(input: AsyncIterable<Buffer | string>): Chunks {
  for await (const chunk of input) yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8').toString('latin1') : chunk.toString('latin1');
}

/** The first bytes (up to `size`) to tell the format by, and the whole stream again. */
export async function peek(input: Chunks, size: number): Promise<{ head: string; chunks: Chunks }> {
  const iterator = input[Symbol.asyncIterator]();
  const taken: string[] = [];
  let length = 0;
  let done = false;
  while (length < size) {
    const next = await iterator.next();
    if (next.done === true) {
      done = true;
      break;
    }
    taken.push(next.value);
    length += next.value.length;
  }
  async function* replay(): Chunks {
    yield* taken;
    if (done) return;
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) yield next.value;
  }
  return { head: taken.join('').slice(0, size), chunks: replay() };
}

/** Lines without their ends ("\n", "\r\n"), with their numbers from 1. */
export async function* lines(input: Chunks): AsyncGenerator<{ line: string; number: number }> {
  let number = 0;
  for await (const batch of lineBatches(input)) {
    for (const line of batch) {
      number += 1;
      yield { line, number };
    }
  }
}

/**
 * The lines of each chunk together (the last line of a chunk waits for the next): a reader that
 * goes through them synchronously pays one await a chunk, not one a line.
 */
export async function* lineBatches(input: Chunks): AsyncGenerator<string[]> {
  let rest = '';
  for await (const chunk of input) {
    const batch: string[] = [];
    let start = 0;
    // Only the new chunk is searched: a line longer than many chunks costs no rescans.
    for (let end = chunk.indexOf('\n'); end >= 0; end = chunk.indexOf('\n', start)) {
      const line = rest + chunk.slice(start, end);
      rest = '';
      batch.push(line.endsWith('\r') ? line.slice(0, -1) : line);
      start = end + 1;
    }
    rest += chunk.slice(start);
    if (batch.length > 0) yield batch;
  }
  if (rest !== '') yield [rest.endsWith('\r') ? rest.slice(0, -1) : rest];
}

/** A binary string's UTF-8 text. */
export function utf8(binary: string): string {
  return Buffer.from(binary, 'latin1').toString('utf8');
}
