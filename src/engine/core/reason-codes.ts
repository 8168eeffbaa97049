/**
 * `reasonCode`: why a result is what it is, as one stable word a script can test (docs/providers.md
 * "Reason codes" has them as a table). `reason` keeps the words, the server's own among them; the code never changes
 * with the wording. Each code belongs to one verdict, except those about the address's mailbox
 * under a catch-all or risk verdict, which is why the verdict is given beside it.
 */
const REASON_CODES = {
  // valid
  accepted: "the recipient's server accepted the address at RCPT TO",
  delivered:
    "the account's own mail to the address was delivered (its evidence, within the window), where the probe proved nothing (catch-all, a provider whose 250 is no proof, 252)",
  // invalid
  syntax: 'the address is not a well-formed RFC 5321 mailbox',
  domain_not_found: 'the domain does not exist (NXDOMAIN), or its mail server says it does not know it',
  no_mail_host: 'the domain takes no mail: null MX (RFC 7505), or neither MX nor A/AAAA',
  mailbox_not_found: 'the server says the mailbox does not exist',
  mailbox_disabled: 'the server says the mailbox is disabled, closed or inactive',
  not_served_here: "the domain's own mail host refuses to take mail for it (relaying denied, accepts no mail)",
  bounced: "the account's own mail to the address bounced as a missing mailbox (its evidence, within the window); no newer probe said otherwise",
  unreadable_refusal:
    'a permanent refusal of the address that names no cause, while postmaster at the domain is accepted (or not asked): the refusal is about the address',
  // risky
  disposable: 'the domain is a disposable (temporary) address provider',
  role: 'the local part is a role (admin, info, support, ...), not a person',
  blacklisted: 'the domain or its mail hosts are listed on a DNSBL',
  // catch_all
  catch_all: 'the server accepts any address at the domain, so it proves nothing about this one',
  // unknown: the recipient's server answered, but not about the mailbox
  not_verified: 'the server takes mail without saying whether the mailbox exists (252)',
  accept_unproven: 'the server accepted the address, but a provider rule says its hosts accept every address at RCPT TO, so that proves nothing',
  mailbox_full: 'the mailbox exists but is full or over quota',
  greylisted: 'the server greylisted us (asked again on the retry schedule; this is its last answer)',
  rate_limited: 'the server limits how fast it takes mail, from us or for this recipient',
  temporary_failure: 'the server deferred the answer (a 4xx, or a 5xx saying "temporarily")',
  server_error: 'the server reported a fault of its own or of the session (system error, service unavailable, commands out of sequence)',
  ip_blocked: 'the server refuses our IP address or host name (DNSBL, reverse DNS, HELO, reputation)',
  policy_refused: 'refused by a policy (content, authentication, recipient preferences), not about the mailbox',
  sender_refused: 'the server refused us, not the address: our envelope sender (MAIL FROM), or a refusal no row reads that postmaster at the domain got too',
  smtputf8_unsupported: 'the server does not take internationalised addresses',
  // unknown: no answer from the recipient's server
  timeout: 'a mail host did not answer in time',
  connection_failed: 'no SMTP conversation with any mail host (refused, reset, TLS or protocol failure)',
  mail_host_unusable: 'the mail hosts have no address we may contact',
  // unknown: the verifying side's own condition
  dns_failure: 'DNS could not answer (SERVFAIL, timeout, refused)',
  resolver_untruthful: 'the resolver denies well-known domains too, so its denials are not believed',
  port25_blocked: "outbound SMTP (port 25) is blocked on the verifying host's network",
  proxy_failed: 'the SOCKS proxy gave no connection',
  egress_benched:
    'every egress (source address or proxy) is benched for the domain, whose mail host refused each for reputation, or at its whole provider, whose own check hosts did too; asked again once a cool-down ends',
  address_literal: 'an address literal (user@[192.0.2.1]) names no domain and is never probed',
  internal_error: 'a fault in the verifier itself',
} as const;

export type ReasonCode = keyof typeof REASON_CODES;

/**
 * The codes of an `unknown` caused by the verifying side's own condition, not by the address: its
 * outbound port 25 blocked, its resolver lying, its proxy failing, every egress benched. Such a result says nothing of the
 * address (the CLI will not let it replace a cleaned list, and exits 9).
 */
export const VERIFIER_CONDITIONS: ReadonlySet<string> = new Set<ReasonCode>(['port25_blocked', 'resolver_untruthful', 'proxy_failed', 'egress_benched']);

export const REASON_CODE_NAMES = Object.keys(REASON_CODES) as ReasonCode[];

export function isReasonCode(value: string): value is ReasonCode {
  return Object.hasOwn(REASON_CODES, value);
}
