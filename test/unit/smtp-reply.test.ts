import { describe, expect, it } from 'vitest';
import { describeReply, REPLY_TABLE, replyKind, ruleOf, statusOfKind } from '../../src/engine/smtp/reply-table.js';
import { parseReply, SmtpProtocolError } from '../../src/engine/smtp/reply.js';

/** A reply line as a server sends it, possibly several lines joined by \r\n. */
const reply = (text: string) => parseReply(text.split('\r\n'));
const status = (text: string) => statusOfKind(replyKind(reply(text)));

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

  it('rejects what is not an SMTP reply', () => {
    expect(() => reply('hello there')).toThrow(SmtpProtocolError);
    expect(() => reply('250-first\r\n550 second')).toThrow(SmtpProtocolError);
  });
});

describe('the RCPT reply table', () => {
  const rows = REPLY_TABLE.flatMap((row, index) => row.examples.map((example) => [example, row.kind, index] as const));

  it('has a real reply line for every row', () => {
    for (const [index, row] of REPLY_TABLE.entries()) expect(row.examples.length, `row ${index} (${row.kind})`).toBeGreaterThan(0);
  });

  // Decided by its own row, not an earlier one of the same kind: otherwise that row is never tested.
  it.each(rows)('%s → %s (row %i)', (example, kind, index) => {
    const parsed = reply(example);
    expect(REPLY_TABLE.indexOf(ruleOf(parsed)!)).toBe(index);
    expect(replyKind(parsed)).toBe(kind);
  });

  it.each([
    ['550 5.1.1 <nobody@example.com>: Recipient address rejected: User unknown in virtual mailbox table', 'invalid'],
    ['550 Requested action not taken: mailbox unavailable', 'invalid'],
    ['550 5.2.1 The email account that you tried to reach is disabled.', 'invalid'],
    // Over quota: the mailbox exists but would bounce today and may not next week, so neither
    // "valid" (deliverable) nor "invalid" (drop the address) is honest.
    ['552 5.2.2 <someone@example.com>: Mailbox full', 'unknown'],
    ['452 4.2.2 The email account that you tried to reach is over quota.', 'unknown'],
    ['450 4.2.0 <a@b.test>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/b.test.html', 'unknown'],
    ['451 4.3.0 Temporary lookup failure', 'unknown'],
    ['452 4.5.3 Error: too many recipients', 'unknown'],
    // Refusals of us, not of the mailbox: never "invalid".
    ['554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org', 'unknown'],
    ['550 5.7.1 Client host rejected: cannot find your hostname, [192.0.2.1]', 'unknown'],
    ['450 4.7.1 Client host rejected: cannot find your reverse hostname, [192.0.2.1]', 'unknown'],
    ['554 5.7.1 <a@b.test>: Relay access denied', 'unknown'],
    ['553 5.1.8 <verify@probe.example>: Sender address rejected: Domain not found', 'unknown'],
    ['550 Message rejected', 'unknown'],
    ['250 2.1.5 Ok', 'valid'],
  ])('%s → smtpStatus %s', (text, expected) => {
    expect(status(text)).toBe(expected);
  });

  it('labels the reason of an undecided reply and quotes a deciding one as is', () => {
    const grey = '450 4.2.0 <a@b.test>: Recipient address rejected: Greylisted';
    expect(describeReply(reply(grey))).toBe(`greylisted: ${grey}`);
    expect(describeReply(reply('554 5.7.1 Client host [192.0.2.1] blocked using zen.spamhaus.org'))).toMatch(/^blocked: 554 5\.7\.1/);
    expect(describeReply(reply('550 5.1.1 User unknown'))).toBe('550 5.1.1 User unknown');
  });

  it('calls a reply no row knows rejected', () => {
    expect(replyKind(reply('354 go ahead'))).toBe('rejected');
  });
});
