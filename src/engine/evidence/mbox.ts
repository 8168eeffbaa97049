import { lineBatches, type Chunks } from './stream.js';

/** Largest message kept whole; a bigger one is skipped, so memory stays flat whatever the mbox holds. */
export const MESSAGE_LIMIT = 32 * 1024 * 1024;

export interface MboxMessage {
  /** 1 for the first message. */
  number: number;
  /** The message as a binary string, or null when it was larger than MESSAGE_LIMIT. */
  raw: string | null;
  /** The date of its "From " line, when it has one. */
  separatorDate: string | null;
}

/** The messages of an mbox, one at a time (mboxo and mboxrd: one ">" is taken off quoted "From " lines). */
export async function* mboxMessages(input: Chunks): AsyncGenerator<MboxMessage> {
  let current: string[] = [];
  let size = 0;
  let number = 0;
  let separatorDate: string | null = null;
  let started = false;
  for await (const batch of lineBatches(input)) {
    const done: MboxMessage[] = [];
    for (const line of batch) {
      if (line.startsWith('From ')) {
        if (started) done.push(finish());
        started = true;
        number += 1;
        separatorDate = dateOfSeparator(line);
        current = [];
        size = 0;
        continue;
      }
      if (!started) continue;
      size += line.length + 1;
      if (size <= MESSAGE_LIMIT) current.push(/^>+From /.test(line) ? line.slice(1) : line);
    }
    yield* done;
  }
  if (started) yield finish();

  function finish(): MboxMessage {
    return { number, raw: size <= MESSAGE_LIMIT ? current.join('\n') : null, separatorDate };
  }
}

/** "From sender Thu Apr 29 00:00:00 2010": the date after the sender, as asctime writes it. */
function dateOfSeparator(line: string): string | null {
  const match = /(\w{3} \w{3}\s+\d{1,2} \d{1,2}:\d{2}(?::\d{2})? (?:\d{4}|[A-Z]{2,5} \d{4}))/.exec(line);
  if (!match) return null;
  const date = new Date(`${match[1]} UTC`.replace(/ ([A-Z]{2,5}) (\d{4}) UTC$/, ' $2 $1'));
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
