import { isIP } from 'node:net';
import type { SmtpReply } from './reply.js';

/**
 * The address a mail host says our connection comes from, read from its answer to EHLO/HELO:
 * many MTAs echo the peer there (Gmail `mx.google.com at your service, [203.0.113.5]`, Exim
 * `Hello probe.example [203.0.113.5]`, OpenSMTPD and Sendmail likewise, Microsoft `Hello
 * [203.0.113.5]`). Behind NAT or a proxy it is the only way to learn the address the world judges
 * us by (docs/architecture.md "Egress"). The greeting is not read: where it carries an address in
 * brackets, it is the server's own.
 */

/** `[203.0.113.5]`, `[IPv6:2001:db8::5]`, `(203.0.113.5)`: an address literal as MTAs write the peer. */
const BRACKETED = /[[(](?:IPv6:)?([0-9A-Fa-f:.]+)[\])]/g;

/** `::ffff:203.0.113.5` as 203.0.113.5: an IPv4 peer seen by a dual-stack server. */
function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address.toLowerCase();
}

/**
 * The peer address in the first line of an EHLO/HELO reply, or null when it names none. An address
 * equal to `serverAddress` (the host we connected to) is the server naming itself, not us.
 */
export function peerAddressIn(reply: Pick<SmtpReply, 'lines'>, serverAddress?: string): string | null {
  const first = reply.lines[0] ?? '';
  const server = serverAddress === undefined ? undefined : unmapped(serverAddress);
  for (const match of first.matchAll(BRACKETED)) {
    const address = unmapped(match[1]!);
    if (isIP(address) !== 0 && address !== server) return address;
  }
  return null;
}
