import type { Checks, Verdict } from './types.js';

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
  /** "192.0.2.1 in zen.spamhaus.org", one per listing. */
  listings: readonly string[];
  /** The reply to the random address that showed the domain to be catch-all. */
  catchAllReason: string;
}

export interface Classification {
  result: Verdict;
  reason: string;
}

const UNDELIVERABLE_DOMAIN: Partial<Record<DomainStatus['kind'], string>> = {
  nxdomain: 'the domain does not exist (NXDOMAIN)',
  'null-mx': 'the domain accepts no mail (null MX, RFC 7505)',
  'no-mail-host': 'the domain has neither MX nor A/AAAA records',
};

function riskReasons({ checks, listings }: Evidence): string[] {
  const reasons: string[] = [];
  if (checks.isDisposable) reasons.push('disposable email domain');
  if (checks.isRole) reasons.push('role address');
  if (checks.isBlacklisted) reasons.push(`blacklisted: ${listings.join(', ')}`);
  return reasons;
}

function unknownReason({ domain, smtpReason }: Evidence): string {
  if (domain.kind === 'dns-failure') return `DNS ${domain.detail}`;
  if (domain.kind === 'not-looked-up' || domain.kind === 'untrusted-dns') return domain.detail;
  return smtpReason;
}

/**
 * The verdict rules of DESIGN.md §3, in order; the first that matches wins. Pure: everything it
 * needs is in `evidence`, and `reason` is never empty.
 */
export function classify(evidence: Evidence): Classification {
  const { checks, domain } = evidence;
  if (!checks.format) return { result: 'invalid', reason: `invalid address: ${evidence.formatProblem}` };
  const undeliverable = UNDELIVERABLE_DOMAIN[domain.kind];
  if (undeliverable !== undefined) return { result: 'invalid', reason: undeliverable };
  if (checks.smtpStatus === 'invalid') return { result: 'invalid', reason: evidence.smtpReason };
  const risks = riskReasons(evidence);
  if (risks.length > 0) return { result: 'risky', reason: risks.join('; ') };
  if (checks.isCatchAll) return { result: 'catch_all', reason: `catch-all domain: ${evidence.catchAllReason}` };
  if (checks.smtpStatus === 'valid') return { result: 'valid', reason: evidence.smtpReason };
  return { result: 'unknown', reason: unknownReason(evidence) };
}
