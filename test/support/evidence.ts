import { fileURLToPath } from 'node:url';
import type { EvidenceEvent, EvidenceRead, EvidenceSkip } from '../../src/engine/evidence/event.js';
import { readEvidencePath, readEvidenceStream } from '../../src/engine/evidence/read.js';

/** A file of test/fixtures/evidence/. */
export function evidenceFixture(name: string): string {
  return fileURLToPath(new URL(`../fixtures/evidence/${name}`, import.meta.url));
}

/** Everything a reader yields, split into events and skips. */
export async function collect(reads: AsyncIterable<EvidenceRead>): Promise<{ events: EvidenceEvent[]; skips: EvidenceSkip[] }> {
  const events: EvidenceEvent[] = [];
  const skips: EvidenceSkip[] = [];
  for await (const read of reads) {
    if ('event' in read) events.push(read.event);
    else skips.push(read.skip);
  }
  return { events, skips };
}

export function readFixture(name: string, options?: { source?: string }) {
  return collect(readEvidencePath(evidenceFixture(name), options));
}

/** A text as a stream in chunks of `size` bytes, so readers meet lines and characters cut anywhere. */
export function readText(name: string, text: string | Buffer, options: { contentType?: string; source?: string; chunk?: number } = {}) {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8');
  const size = options.chunk ?? 64 * 1024;
  async function* chunks() {
    for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
  }
  return collect(readEvidenceStream(name, chunks(), options));
}
