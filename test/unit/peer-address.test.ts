import { describe, expect, it } from 'vitest';
import { peerAddressIn } from '../../src/engine/smtp/peer-address.js';
import { parseReply } from '../../src/engine/smtp/reply.js';

/** An EHLO reply as the server sends it, lines joined by \r\n. */
const ehlo = (text: string) => parseReply(text.split('\r\n'));

describe('peerAddressIn (the address a mail host says we come from)', () => {
  it.each([
    ['Gmail', '250-mx.google.com at your service, [203.0.113.5]\r\n250-SIZE 157286400\r\n250 SMTPUTF8', '203.0.113.5'],
    ['Microsoft', '250-BN8NAM12FT064.mail.protection.outlook.com Hello [203.0.113.5]\r\n250 SIZE 157286400', '203.0.113.5'],
    ['Exim', '250-mx.exim.test Hello probe.test [127.0.0.9]\r\n250-SIZE 52428800\r\n250 HELP', '127.0.0.9'],
    ['OpenSMTPD', '250-mx.opensmtpd.test Hello probe.test [127.0.0.9], pleased to meet you\r\n250 HELP', '127.0.0.9'],
    ['Sendmail', '250-mail.example.org Hello probe.example [198.51.100.7], pleased to meet you\r\n250 HELP', '198.51.100.7'],
    ['smtp-server (nodemailer)', '250-mx.fixture.test Nice to meet you, [127.0.13.7]\r\n250 PIPELINING', '127.0.13.7'],
    ['a HELO reply', '250 mail.example.org Hello probe.example (198.51.100.7)', '198.51.100.7'],
    ['IPv6 in RFC 5321 literal form', '250-mx.example Hello probe.example [IPv6:2001:DB8::5]\r\n250 HELP', '2001:db8::5'],
    ['IPv6 bare', '250-mx.example at your service, [2001:db8::5]\r\n250 HELP', '2001:db8::5'],
    ['an IPv4-mapped peer', '250-mx.example Hello [::ffff:203.0.113.5]\r\n250 HELP', '203.0.113.5'],
  ])('reads %s', (_, text, address) => {
    expect(peerAddressIn(ehlo(text))).toBe(address);
  });

  it.each([
    ['Postfix (names no peer)', '250-mx.mailbox.test\r\n250-PIPELINING\r\n250 CHUNKING'],
    ['a bracketed word', '250-mx.example [not an address] hello\r\n250 HELP'],
    ['a bracketed number that is no address', '250 mx.example Hello (1234)'],
    ['an address on a later line only', '250-mx.example\r\n250 XCLIENT [203.0.113.5]'],
  ])('finds nothing in %s', (_, text) => {
    expect(peerAddressIn(ehlo(text))).toBeNull();
  });

  it('skips the server naming itself, and takes the peer after it', () => {
    expect(peerAddressIn(ehlo('250 [192.0.2.1] Hello probe.example'), '192.0.2.1')).toBeNull();
    expect(peerAddressIn(ehlo('250 [192.0.2.1] Hello probe.example [203.0.113.5]'), '192.0.2.1')).toBe('203.0.113.5');
    expect(peerAddressIn(ehlo('250 mx.example Hello [203.0.113.5]'), '192.0.2.1')).toBe('203.0.113.5');
  });
});
