import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codeOfKind, describeReply, REPLY_RULES, replyKind, ruleOf, statusOfKind, type ReplyKind } from '../../src/engine/smtp/reply-table.js';
import { CONTROLLED_KIND, controlledOutcome, postmasterAnswerOf } from '../../src/engine/smtp/postmaster-control.js';
import { parseReply, SmtpProtocolError } from '../../src/engine/smtp/reply.js';
import type { SmtpStatus } from '../../src/engine/core/types.js';

/** A reply line as a server sends it, possibly several lines joined by \r\n. */
const reply = (text: string) => parseReply(text.split('\r\n'));

interface RealReply {
  provider: string;
  reply: string;
  source: string;
  kind: ReplyKind;
  status: SmtpStatus;
}
/** Real RCPT replies from bounce corpora, provider pages and MTA sources, each with what it means. */
const CORPUS = JSON.parse(readFileSync(new URL('../support/corpora/rcpt-replies.json', import.meta.url), 'utf8')) as RealReply[];

describe('parseReply', () => {
  it('reads the code, the enhanced code and the text', () => {
    expect(reply('550 5.1.1 <a@b.test>: Recipient address rejected: User unknown')).toMatchObject({
      code: 550,
      enhanced: '5.1.1',
      text: '<a@b.test>: Recipient address rejected: User unknown',
      line: '550 5.1.1 <a@b.test>: Recipient address rejected: User unknown',
    });
  });

  it('joins a multi-line reply, keeping the repeated enhanced code once', () => {
    const parsed = reply(
      '550-5.1.1 The email account that you tried to reach does not exist. Please try\r\n' +
        "550-5.1.1 double-checking the recipient's email address for typos or\r\n" +
        '550 5.1.1 unnecessary spaces.',
    );
    expect(parsed.enhanced).toBe('5.1.1');
    expect(parsed.line).toBe(
      "550 5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces.",
    );
    expect(parsed.lines).toHaveLength(3);
  });

  it('reads replies without an enhanced code, and bare codes', () => {
    expect(reply('550 No Such User Here')).toMatchObject({ enhanced: null, text: 'No Such User Here' });
    expect(reply('250')).toMatchObject({ code: 250, text: '', line: '250' });
  });

  it('reads an enhanced code written with a #', () => {
    expect(reply('550 #5.1.0 Address rejected.')).toMatchObject({ enhanced: '5.1.0', text: 'Address rejected.' });
  });

  it('reads a line that carries U+2028 or U+2029 (remote text is not ours to trust)', () => {
    expect(reply('550 5.1.1 no such\u2029user\u2028here')).toMatchObject({ code: 550, enhanced: '5.1.1', text: 'no such\u2029user\u2028here' });
  });

  it('rejects what is not an SMTP reply', () => {
    expect(() => reply('hello there')).toThrow(SmtpProtocolError);
    expect(() => reply('250-first\r\n550 second')).toThrow(SmtpProtocolError);
  });
});

describe('the RCPT reply table', () => {
  const rows = REPLY_RULES.flatMap((row, index) => row.examples.map(({ reply: line }) => [line, row.kind, index] as const));

  it('has a real reply line and its source for every row', () => {
    for (const [index, row] of REPLY_RULES.entries()) {
      expect(row.examples.length, `row ${index} (${row.kind})`).toBeGreaterThan(0);
      for (const example of row.examples) expect(example.source, example.reply).not.toBe('');
    }
  });

  // Decided by its own row, not an earlier one of the same kind: otherwise that row is never tested.
  it.each(rows)('%s → %s (row %i)', (example, kind, index) => {
    const parsed = reply(example);
    expect(REPLY_RULES.indexOf(ruleOf(parsed)!)).toBe(index);
    expect(replyKind(parsed)).toBe(kind);
  });

  it('says what happened in words, then quotes the reply', () => {
    const grey = '450 4.2.0 <a@b.test>: Recipient address rejected: Greylisted';
    expect(describeReply(reply(grey))).toBe(`greylisted: ${grey}`);
    expect(describeReply(reply('550 5.1.1 User unknown'))).toBe('mailbox does not exist: 550 5.1.1 User unknown');
    expect(describeReply(reply('554 5.7.1 Client host [192.0.2.1] blocked using zen.spamhaus.org'))).toMatch(/^our IP is blocked: 554 5\.7\.1/);
    expect(describeReply(reply('550 relay not permitted'))).toBe('relay refused for this domain: 550 relay not permitted');
    expect(describeReply(reply('451 Temporary local problem - please try later'))).not.toMatch(/grey/i);
  });

  it('calls a reply no row knows rejected', () => {
    expect(replyKind(reply('354 go ahead'))).toBe('rejected');
  });
});

describe('the table against real replies', () => {
  it('holds at least 150 real replies from at least 20 providers and MTAs, each with its source', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(150);
    expect(new Set(CORPUS.map((entry) => entry.provider)).size).toBeGreaterThanOrEqual(20);
    for (const entry of CORPUS) expect(entry.source, entry.reply).not.toBe('');
  });

  it('gives every reason code a reply can have to some real reply', () => {
    const codes = new Set([...REPLY_RULES.map((row) => row.kind), 'rejected' as const].map(codeOfKind));
    const given = new Set(CORPUS.map((entry) => codeOfKind(replyKind(reply(entry.reply)))));
    expect([...codes].filter((code) => !given.has(code))).toEqual([]);
  });

  it.each(CORPUS.map((entry) => [entry.reply, entry.kind, entry.status, entry.provider] as const))('%s → %s, %s (%s)', (line, kind, status) => {
    expect(replyKind(reply(line))).toBe(kind);
    expect(statusOfKind(kind)).toBe(status);
  });

  // The patterns issue 11 names, by what each must mean: the text overrides the code both ways.
  it.each([
    [
      '550 5.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.',
      'rate-limited',
      'unknown',
    ],
    ['552 5.1.1 Boite du destinataire pleine.', 'mailbox-full', 'unknown'],
    ['550 5.1.0 <bounce@mailer.example.com> sender rejected. Refer to Error Codes section', 'sender-rejected', 'unknown'],
    ['550 5.1.1 RCP-P2 http://postmaster.facebook.com/response_codes?ip=192.0.2.135#rcp Refused due to recipient preferences', 'policy', 'unknown'],
    ['550 5.7.1 550 User Unknown: sabineko@example.org', 'no-such-mailbox', 'invalid'],
    ['550 5.7.1 <a@b.test>: Recipient address rejected: User unknown', 'no-such-mailbox', 'invalid'],
    [
      '554 delivery error: dd Sorry your message to a@yahoo.com cannot be delivered. This account has been disabled or discontinued [#102].',
      'mailbox-disabled',
      'invalid',
    ],
    ['551 not our user', 'no-such-mailbox', 'invalid'],
    ['525 5.7.13 <a@example.org>: Recipient address rejected: Disabled recipient address', 'mailbox-disabled', 'invalid'],
    ['550 #5.1.0 Address rejected.', 'no-such-mailbox', 'invalid'],
    ['550 5.5.0 Le compte du destinataire est bloque. The recipient account is blocked. LPN007_426', 'mailbox-disabled', 'invalid'],
    ['524 5.2.4 Mailing list expansion problem: <nobody@example.org>', 'no-such-mailbox', 'invalid'],
    ['550 relay not permitted', 'relay-denied', 'invalid'],
    ['554 5.7.1 <a@b.test>: Relay access denied', 'relay-denied', 'invalid'],
    ['550 <a@example.co.jp>... User not exist', 'no-such-mailbox', 'invalid'],
    ['550 account closed - please contact info@example.org instead', 'mailbox-disabled', 'invalid'],
    ["550 'a@example.com' is not a registered gateway user", 'no-such-mailbox', 'invalid'],
    ['551 User not local; please try <forward-path>', 'no-such-mailbox', 'invalid'],
    ['252 Cannot VRFY user, but will accept message and attempt delivery', 'not-verified', 'unknown'],
    ['451 Temporary local problem - please try later', 'temporary', 'unknown'],
  ] as const)('%s → %s, %s', (line, kind, status) => {
    const row = ruleOf(reply(line));
    expect(
      CORPUS.some((entry) => ruleOf(reply(entry.reply)) === row),
      'a real reply of the corpus decided by the same row',
    ).toBe(true);
    expect(replyKind(reply(line))).toBe(kind);
    expect(statusOfKind(kind)).toBe(status);
  });
});

/** The reply reads as `kind`, a kind that never makes the address `invalid`. */
function readsUnknownAs(line: string, kind: ReplyKind): void {
  expect(replyKind(reply(line))).toBe(kind);
  expect(statusOfKind(kind)).toBe('unknown');
}

describe('refusals about the sender', () => {
  // The unseen real replies that were read as "no such mailbox" before: each about us, none `invalid`.
  it.each([
    ['554 smtp-fw-9107.amazon.com; SBRS score too low: http://www.senderbase.org/', 'blocked'],
    ['550 black ip.', 'blocked'],
    ['550 you are not allowed to send mail to <someone@example.org>', 'policy'],
    ['504 5.5.2 <localhost>: Helo command rejected: need fully-qualified hostname', 'blocked'],
    ['550 5.5.0 Authentification requise. Authentication Required. LPN105_402', 'policy'],
    ['503 Improper sequence of commands', 'server-error'],
    ['550 coolexample.com From: Domain is invalid. Provide a valid From: IB506', 'sender-rejected'],
    ['552 Too much mail data recipient-mailbox-is-full@docomo.ne.jp', 'mailbox-full'],
  ] as const)('%s → %s, unknown', readsUnknownAs);

  it('reads a 552 by its code whatever its words', () => {
    expect(replyKind(reply('552 5.1.1 Postfach voll'))).toBe('mailbox-full');
    expect(replyKind(reply('552 Speicherplatz überschritten'))).toBe('mailbox-full');
  });

  it('leaves a refusal in words no row reads to the postmaster control', () => {
    expect(replyKind(reply('550 Odmowa przyjęcia wiadomości'))).toBe(CONTROLLED_KIND);
  });
});

describe('refusals about room or size', () => {
  // Real replies that were read as `invalid` (a list cleaner would delete a real customer for them).
  it.each([
    ['550-Benutzer hat das Speichervolumen überschritten.\r\n550 User has exhausted allowed storage space.', 'mailbox-full'],
    ['550 5.2.3 RESOLVER.RST.RecipSizeLimit; message too large for this recipient', 'policy'],
    ['550 mailbox lleno', 'mailbox-full'],
    ['550 account is full', 'mailbox-full'],
  ] as const)('%s → %s, unknown', readsUnknownAs);

  it.each(['boîte pleine', 'casella piena', 'skrzynka pełna', 'caixa cheia', 'Postfach voll', 'quota exceeded', 'size limit exceeded'])(
    'never reads "550 %s" as invalid',
    (words) => expect(statusOfKind(replyKind(reply(`550 ${words}`)))).toBe('unknown'),
  );

  it('leaves a 5.7.x that calls the address invalid to the postmaster control, not to policy', () => {
    const refusal = reply('550 5.7.0 address invalid');
    expect(replyKind(refusal)).toBe(CONTROLLED_KIND);
    const fine = postmasterAnswerOf(reply('250 2.1.5 Ok'), 'a.test');
    expect(controlledOutcome(refusal, fine, 'a.test', 'mx.a.test').outcome).toMatchObject({ status: 'invalid' });
  });
});

describe('the postmaster control', () => {
  const refusal = reply('550 Odmowa przyjęcia wiadomości');
  it('keeps the table reading when not asked or unanswered', () => {
    expect(controlledOutcome(refusal, null, 'a.test', 'mx.a.test').outcome).toMatchObject({ status: 'invalid', code: 'unreadable_refusal' });
  });

  it('calls the refusal ours when postmaster is refused too', () => {
    const answer = postmasterAnswerOf(reply('550 Odmowa'), 'a.test');
    expect(answer).toMatchObject({ accepted: false });
    expect(controlledOutcome(refusal, answer, 'a.test', 'mx.a.test')).toEqual({
      outcome: {
        status: 'unknown',
        code: 'sender_refused',
        reason: 'refused for the sender, not the address: 550 Odmowa przyjęcia wiadomości; postmaster@a.test was refused too: 550 Odmowa',
      },
      kind: 'sender-rejected',
    });
  });

  it('lets the refusal stand when postmaster is accepted, and names where an earlier answer came from', () => {
    const answer = postmasterAnswerOf(reply('250 2.1.5 Ok'), 'b.test');
    const { outcome } = controlledOutcome(refusal, answer, 'a.test', 'mx.a.test');
    expect(outcome).toMatchObject({ status: 'invalid', code: 'unreadable_refusal' });
    expect(outcome.reason).toMatch(/postmaster@b\.test at mx\.a\.test was accepted, so the refusal is about the address$/);
  });

  it('learns nothing from a 4xx', () => {
    expect(postmasterAnswerOf(reply('450 4.7.1 try later'), 'a.test')).toBeNull();
  });
});
