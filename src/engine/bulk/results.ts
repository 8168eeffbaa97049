import { classify, type DomainStatus, type Evidence } from '../classify.js';
import type { CatchAllFinding } from '../checks/catch-all.js';
import { domainExists, hasMx } from '../checks/mail-route.js';
import type { SmtpOutcome } from '../checks/smtp-status.js';
import { isRoleLocalPart } from '../lists/roles.js';
import { NOTHING_CHECKED, type Checks, type VerificationResult } from '../types.js';
import type { DomainFacts } from './domain-facts.js';

/** One address of the input, well-formed, waiting for its domain's findings. */
export interface AddressEntry {
  /** The input string, trimmed: the `email` of its result. */
  email: string;
  local: string;
}

/** The per-domain findings an address's result is built from, all settled. */
export interface DomainFindings {
  facts: DomainFacts;
  listings: readonly string[];
  reachable: boolean;
  catchAll: CatchAllFinding;
}

/** The words behind the checks that a result has (see `Evidence`). */
type Explanations = Partial<Pick<Evidence, 'formatProblem' | 'smtpReason' | 'listings' | 'catchAllReason'>>;

function result(email: string, checks: Checks, domain: DomainStatus, words: Explanations): VerificationResult {
  const { result: verdict, reason } = classify({
    checks,
    domain,
    formatProblem: words.formatProblem ?? '',
    smtpReason: words.smtpReason ?? 'not asked',
    listings: words.listings ?? [],
    catchAllReason: words.catchAllReason ?? '',
  });
  return { email, result: verdict, checks, reason };
}

export function malformedResult(email: string, problem: string): VerificationResult {
  return result(email, NOTHING_CHECKED, { kind: 'not-looked-up', detail: 'malformed' }, { formatProblem: problem });
}

/** `user@[192.0.2.1]`: well-formed, but a literal names no domain to look up and is never probed. */
export function addressLiteralResult(email: string): VerificationResult {
  return result(email, { ...NOTHING_CHECKED, format: true }, { kind: 'not-looked-up', detail: 'address literals are not probed' }, {});
}

export function addressResult(entry: AddressEntry, findings: DomainFindings, smtp: SmtpOutcome): VerificationResult {
  const { facts, listings, reachable, catchAll } = findings;
  const checks: Checks = {
    format: true,
    domainExists: domainExists(facts.route),
    hasMx: hasMx(facts.route),
    domainReachable: reachable,
    smtpStatus: smtp.status,
    isDisposable: facts.isDisposable,
    isRole: isRoleLocalPart(entry.local),
    isBlacklisted: listings.length > 0,
    isKnownProvider: facts.isKnownProvider,
    isCatchAll: catchAll.isCatchAll,
  };
  const verdict = result(entry.email, checks, facts.status, { smtpReason: smtp.reason, listings, catchAllReason: catchAll.reason });
  return facts.suggestedDomain === null ? verdict : { ...verdict, suggestion: `${entry.local}@${facts.suggestedDomain}` };
}
