// Evidence read from real bounces: every message of the shared corpus (real bounces of many MTAs and
// ESPs, with the recipient and the verdicts a reader may reach in its manifest) is read by content,
// and what the events say of the expected recipient is scored. Below 97% right, the test fails and
// prints every miss. The messages stay beside the clone, never in it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { EvidenceEvent } from '../../src/engine/evidence/event.js';
import { meaningOf } from '../../src/engine/evidence/meaning.js';
import { readEvidencePath } from '../../src/engine/evidence/read.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** `../shared/bounces` beside the clone (as CI has it); MAILVERIFY_BOUNCE_CORPUS names another place (a worktree's). */
const CORPUS = process.env.MAILVERIFY_BOUNCE_CORPUS ?? join(REPO_ROOT, '..', 'shared', 'bounces');

interface Entry {
  file: string;
  source: string;
  expected: { recipient: string; recipientFrom: string };
  /** Every recipient, for the messages that have several. */
  perRecipient?: { recipient: string }[];
  acceptableVerdicts: string[];
  evidence: string;
}

/** What one address's events make of it: a missing mailbox is invalid, a delivery valid, else unknown. */
function verdictOf(events: EvidenceEvent[]): string {
  const meanings = events.map(meaningOf);
  if (meanings.includes('missing-mailbox')) return 'invalid';
  return meanings.includes('delivered') ? 'valid' : 'unknown';
}

async function readMessageFile(path: string): Promise<{ events: EvidenceEvent[]; skips: string[] }> {
  const events: EvidenceEvent[] = [];
  const skips: string[] = [];
  for await (const read of readEvidencePath(path)) {
    if ('event' in read) events.push(read.event);
    else skips.push(read.skip.why);
  }
  return { events, skips };
}

function describeMiss(entry: Entry, verdict: string, mine: EvidenceEvent[], skips: string[]): string {
  const got = mine.map((event) => `${event.kind} ${event.status ?? '-'} ${meaningOf(event)} "${event.diagnostic ?? ''}"`).join('; ');
  const skipped = skips.length > 0 ? ` skipped: ${skips.join('; ')}` : '';
  return `${entry.file} (${entry.source.split('/').pop()}): want ${entry.acceptableVerdicts.join('|')}, got ${verdict} from [${got}]${skipped}\n    evidence: ${entry.evidence.slice(0, 160)}`;
}

describe('the real bounce corpus', () => {
  it('reads the recipients of at least 97% of messages and reaches an acceptable verdict for 97%', async () => {
    if (!existsSync(join(CORPUS, 'manifest.json'))) {
      throw new Error(`the bounce corpus is missing: expected ${CORPUS}/manifest.json (../shared/bounces beside the clone)`);
    }
    const manifest = JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as Entry[];
    const misses: string[] = [];
    const unread: string[] = [];
    const invented: string[] = [];
    let right = 0;
    for (const entry of manifest) {
      const { events, skips } = await readMessageFile(join(CORPUS, entry.file));
      const recipient = entry.expected.recipient.toLowerCase();
      const mine = events.filter((event) => event.email.toLowerCase() === recipient);
      const verdict = verdictOf(mine);
      if (entry.acceptableVerdicts.includes(verdict)) right += 1;
      else misses.push(describeMiss(entry, verdict, mine, skips));
      const wanted = new Set((entry.perRecipient ?? [entry.expected]).map((one) => one.recipient.toLowerCase()));
      const read = new Set(events.map((event) => event.email.toLowerCase()));
      if ([...wanted].some((address) => !read.has(address))) unread.push(entry.file);
      if ([...read].some((address) => !wanted.has(address))) invented.push(entry.file);
    }
    const score = right / manifest.length;
    console.log(
      `bounce corpus: ${right}/${manifest.length} right (${(score * 100).toFixed(1)}%); ` +
        `messages with a recipient not read: ${unread.length} (${unread.join(', ')}), with an address read that is no recipient: ${invented.length} (${invented.join(', ')})\n${misses.join('\n')}`,
    );
    expect(score, misses.join('\n')).toBeGreaterThanOrEqual(0.97);
    // The recipients themselves: every one read, none invented (the sender's own address, a postmaster named in passing), for 97% of the messages.
    expect(unread.length / manifest.length).toBeLessThanOrEqual(0.03);
    expect(invented.length / manifest.length).toBeLessThanOrEqual(0.03);
  }, 60_000);
});
