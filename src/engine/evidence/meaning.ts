import { replyKind } from '../smtp/reply-table.js';
import type { EvidenceEvent } from './event.js';

// Stand-in until the evidence readers land (they bring the full bounce reading); the same signature.

export type EvidenceMeaning = 'missing-mailbox' | 'delivered' | 'soft' | 'not-about-address';

const CODE = /\b([245]\d\d)\b/;
const ENHANCED = /\b([245]\.\d{1,3}\.\d{1,3})\b/;

export function meaningOf(event: EvidenceEvent): EvidenceMeaning {
  if (event.kind === 'delivery') return 'delivered';
  if (event.kind !== 'bounce') return 'soft';
  const text = event.diagnostic ?? '';
  const enhanced = ENHANCED.exec(text)?.[1] ?? event.status ?? null;
  const code = Number(CODE.exec(text)?.[1] ?? (enhanced?.startsWith('4') ? 450 : 550));
  const kind = replyKind({ code, enhanced, text, lines: [text], line: text });
  if (kind === 'no-such-mailbox' || kind === 'mailbox-disabled' || kind === 'no-such-domain') return 'missing-mailbox';
  return kind === 'blocked' || kind === 'sender-rejected' || kind === 'rate-limited' ? 'not-about-address' : 'soft';
}
