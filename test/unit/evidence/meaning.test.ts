// What an event says of its address, read by the probe's own reply table: the words decide, not the
// status alone, and a refusal of the sender is never a missing mailbox.
import { describe, expect, it } from 'vitest';
import { meaningOf, type EvidenceMeaning } from '../../../src/engine/evidence/meaning.js';
import type { EvidenceEvent } from '../../../src/engine/evidence/event.js';

const at = '2026-11-20T00:00:00.000Z';
const bounce = (diagnostic: string | undefined, status?: string): EvidenceEvent => ({
  email: 'x@example.com',
  kind: 'bounce',
  at,
  source: 'dsn',
  ...(status === undefined ? {} : { status }),
  ...(diagnostic === undefined ? {} : { diagnostic }),
});

const CASES: [string, EvidenceEvent, EvidenceMeaning][] = [
  ['a 5.1.1 user unknown', bounce('smtp; 550 5.1.1 <x@example.com>... User unknown', '5.1.1'), 'missing-mailbox'],
  ['a status alone', bounce(undefined, '5.1.1'), 'missing-mailbox'],
  ['a disabled account', bounce('550 5.2.1 The email account that you tried to reach is disabled.'), 'missing-mailbox'],
  [
    'a domain without mail hosts',
    bounce('X-Postfix; Host or domain name not found. Name service error for name=example.com type=A: Host not found'),
    'missing-mailbox',
  ],
  ['over quota under a 5.1.1 status (the words win)', bounce('552 5.2.2 Over quota', '5.1.1'), 'soft'],
  ["MailFoundry's #5.1.1 that says over quota", bounce('552 sorry, mailbox x@example.com is over quota temporarily (#5.1.1)'), 'soft'],
  ['a blocklisted sender', bounce('554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org', '5.7.1'), 'not-about-address'],
  ['a refused sender address', bounce('553 5.1.8 <s@ours.example>... Domain of sender address s@ours.example does not exist', '5.1.8'), 'not-about-address'],
  ['a refusal at MAIL FROM', bounce('553 x.example does not exist (in reply to MAIL FROM)'), 'not-about-address'],
  ['a relay refusal (any hop)', bounce('554 5.7.1 <x@example.com>: Relay access denied', '5.7.1'), 'soft'],
  ['a host that takes no mail for the domain', bounce('550 Host does not accept mail'), 'missing-mailbox'],
  ['a refusal with no cause', bounce('550 Rejected'), 'soft'],
  ['an expired message', bounce('554 4.4.7 Message expired: unable to deliver in 840 minutes.', '4.4.7'), 'soft'],
  ['a delivery', { email: 'x@example.com', kind: 'delivery', at, source: 'postfix' }, 'delivered'],
  ['a deferral', { email: 'x@example.com', kind: 'deferral', at, source: 'postfix', status: '5.1.1' }, 'soft'],
  ['a complaint', { email: 'x@example.com', kind: 'complaint', at, source: 'ses' }, 'soft'],
];

describe('meaningOf', () => {
  it.each(CASES)('%s', (_, event, meaning) => {
    expect(meaningOf(event)).toBe(meaning);
  });
});
