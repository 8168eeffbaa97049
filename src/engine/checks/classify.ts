import { VERIFIER_CONDITIONS, type ReasonCode } from '../core/reason-codes.js';
import type { Checks, Verdict } from '../core/types.js';

/** What DNS said about the domain's mail, as far as the verdict cares. */
export type DomainStatus =
  /** MX hosts, or the implicit MX of an A/AAAA record: SMTP could be asked. */
  | { kind: 'routable' }
  | { kind: 'nxdomain' }
  /** RFC 7505: the domain says it accepts no mail. */
  | { kind: 'null-mx' }
  /** Neither MX nor A/AAAA. */
  | { kind: 'no-mail-host' }
  /** SERVFAIL, timeout, refused: we could not find out. `detail` names the failure. */
  | { kind: 'dns-failure'; detail: string }
  /** NXDOMAIN or no mail host, from a resolver that denies well-known domains too; `detail` says so. */
  | { kind: 'untrusted-dns'; detail: string }
  /** Not looked up at all (address literals); `detail` says why. */
  | { kind: 'not-looked-up'; detail: string };

/** Everything the verdict is decided from: the checks and the words that explain them. */
export interface Evidence {
  checks: Checks;
  /** Why `checks.format` is false. */
  formatProblem: string;
  domain: DomainStatus;
  /** The SMTP reply line behind `smtpStatus`, or why there is none (timeout, blocked, not contacted). */
  smtpReason: string;
  /** `smtpReason` as a code. */
  smtpCode: ReasonCode;
  /** Why the server's acceptance proves nothing (a provider rule: its hosts take every RCPT); absent where it does. */
  acceptUnproven?: string;
  /** "192.0.2.1 in zen.spamhaus.org", one per listing. */
  listings: readonly string[];
  /** The reply to the random address that showed the domain to be catch-all. */
  catchAllReason: string;
}

export interface Classification {
  result: Verdict;
  reason: string;
  reasonCode: ReasonCode;
}

const UNDELIVERABLE_DOMAIN: Partial<Record<DomainStatus['kind'], { reason: string; reasonCode: ReasonCode }>> = {
  nxdomain: { reason: 'the domain does not exist (NXDOMAIN)', reasonCode: 'domain_not_found' },
  'null-mx': { reason: 'the domain accepts no mail (null MX, RFC 7505)', reasonCode: 'no_mail_host' },
  'no-mail-host': { reason: 'the domain has neither MX nor A/AAAA records', reasonCode: 'no_mail_host' },
};

/** Each risk with its words; the first present gives the code. */
function risks({ checks, listings }: Evidence): { words: string; code: ReasonCode }[] {
  const found: { words: string; code: ReasonCode }[] = [];
  if (checks.isDisposable) found.push({ words: 'disposable email domain', code: 'disposable' });
  if (checks.isRole) found.push({ words: 'role address', code: 'role' });
  if (checks.isBlacklisted) found.push({ words: `blacklisted: ${listings.join(', ')}`, code: 'blacklisted' });
  return found;
}

function unknown({ domain, smtpReason, smtpCode }: Evidence): Classification {
  if (domain.kind === 'dns-failure') return { result: 'unknown', reason: `DNS ${domain.detail}`, reasonCode: 'dns_failure' };
  if (domain.kind === 'untrusted-dns') return { result: 'unknown', reason: domain.detail, reasonCode: 'resolver_untruthful' };
  if (domain.kind === 'not-looked-up') return { result: 'unknown', reason: domain.detail, reasonCode: 'address_literal' };
  return { result: 'unknown', reason: smtpReason, reasonCode: smtpCode };
}

/**
 * The verifier could not verify (its resolver lies, its port 25 is blocked, no egress): the lists
 * alone (role, disposable, a listing, a provider's catch-all) must not make a verdict then, or a
 * gate on `unknown` passes and a later run keeps it (docs/architecture.md "The verifying side's own conditions").
 */
function blind({ domain, smtpCode }: Evidence): boolean {
  return domain.kind === 'untrusted-dns' || VERIFIER_CONDITIONS.has(smtpCode);
}

/** SMTP accepted: `valid`, unless the acceptance proves nothing at this provider. */
function accepted({ smtpReason, smtpCode, acceptUnproven }: Evidence): Classification {
  if (acceptUnproven === undefined) return { result: 'valid', reason: smtpReason, reasonCode: smtpCode };
  return { result: 'unknown', reason: `${smtpReason}, but no proof: ${acceptUnproven}`, reasonCode: 'accept_unproven' };
}

/**
 * The verdict rules of docs/architecture.md "The engine", in order; the first that matches wins. Pure: everything it
 * needs is in `evidence`, `reason` is never empty, and `reasonCode` says the same as a code.
 */
export function classify(evidence: Evidence): Classification {
  const { checks, domain } = evidence;
  if (!checks.format) return { result: 'invalid', reason: `invalid address: ${evidence.formatProblem}`, reasonCode: 'syntax' };
  const undeliverable = UNDELIVERABLE_DOMAIN[domain.kind];
  if (undeliverable !== undefined) return { result: 'invalid', ...undeliverable };
  if (checks.smtpStatus === 'invalid') return { result: 'invalid', reason: evidence.smtpReason, reasonCode: evidence.smtpCode };
  if (blind(evidence)) return unknown(evidence);
  const found = risks(evidence);
  if (found.length > 0) return { result: 'risky', reason: found.map((risk) => risk.words).join('; '), reasonCode: found[0]!.code };
  if (checks.isCatchAll) return { result: 'catch_all', reason: `catch-all domain: ${evidence.catchAllReason}`, reasonCode: 'catch_all' };
  if (checks.smtpStatus === 'valid') return accepted(evidence);
  return unknown(evidence);
}
