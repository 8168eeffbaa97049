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
  acceptableVerdicts: string[];
  evidence: string;
}

/** What one address's events make of it: a missing mailbox is invalid, a delivery valid, else unknown. */
function verdictOf(events: EvidenceEvent[]): string {
  const meanings = events.map(meaningOf);
  if (meanings.includes('missing-mailbox')) return 'invalid';
  return meanings.includes('delivered') ? 'valid' : 'unknown';
}

describe('the real bounce corpus', () => {
  it('reads each expected recipient and reaches an acceptable verdict for at least 97% of messages', async () => {
    if (!existsSync(join(CORPUS, 'manifest.json'))) {
      throw new Error(`the bounce corpus is missing: expected ${CORPUS}/manifest.json (../shared/bounces beside the clone)`);
    }
    const manifest = JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as Entry[];
    const misses: string[] = [];
    let right = 0;
    let found = 0;
    for (const entry of manifest) {
      const events: EvidenceEvent[] = [];
      const skips: string[] = [];
      for await (const read of readEvidencePath(join(CORPUS, entry.file))) {
        if ('event' in read) events.push(read.event);
        else skips.push(read.skip.why);
      }
      const recipient = entry.expected.recipient.toLowerCase();
      const mine = events.filter((event) => event.email.toLowerCase() === recipient);
      if (mine.length > 0) found += 1;
      const verdict = verdictOf(mine);
      if (entry.acceptableVerdicts.includes(verdict)) right += 1;
      else {
        const got = mine.map((event) => `${event.kind} ${event.status ?? '-'} ${meaningOf(event)} "${event.diagnostic ?? ''}"`).join('; ');
        const others = events.length > mine.length ? ` others: ${events.map((event) => event.email).join(', ')}` : '';
        misses.push(
          `${entry.file} (${entry.source.split('/').pop()}): want ${entry.acceptableVerdicts.join('|')}, got ${verdict} from [${got}]${others}${skips.length > 0 ? ` skipped: ${skips.join('; ')}` : ''}\n    evidence: ${entry.evidence.slice(0, 160)}`,
        );
      }
    }
    const score = right / manifest.length;
    console.log(`bounce corpus: ${right}/${manifest.length} right (${(score * 100).toFixed(1)}%), expected recipient found in ${found}\n${misses.join('\n')}`);
    expect(score, misses.join('\n')).toBeGreaterThanOrEqual(0.97);
    // The auto-reply names no recipient on purpose; every bounce must.
    expect(found).toBeGreaterThanOrEqual(manifest.length - 1 - Math.floor(manifest.length * 0.03));
  }, 60_000);
});
