import { classify, type DomainStatus, type Evidence } from '../checks/classify.js';
import type { CatchAllFinding } from '../checks/catch-all.js';
import { domainExists, hasMx } from '../checks/mail-route.js';
import type { SmtpOutcome } from '../smtp/outcome.js';
import { isRoleLocalPart } from '../lists/roles.js';
import { BEYOND_FORMAT, NOTHING_CHECKED, type BooleanCheck, type Checks, type VerificationResult } from '../core/types.js';
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
  /** Null when no DNSBL was asked. */
  listings: readonly string[] | null;
  /** Null when the web check did not run. */
  reachable: boolean | null;
  catchAll: CatchAllFinding;
  /** Every mail host's provider rule says it folds a local part's ASCII case (see VerificationResult.foldsCase). */
  foldsCase: boolean;
}

/** The words behind the checks that a result has (see `Evidence`). */
type Explanations = Partial<Pick<Evidence, 'formatProblem' | 'smtpReason' | 'smtpCode' | 'acceptUnproven' | 'listings' | 'catchAllReason'>>;

/** Checks that were looked for and not found stay; a `true` is always a finding. */
function unestablished(checks: Checks, candidates: readonly BooleanCheck[]): BooleanCheck[] | undefined {
  const left = candidates.filter((name) => !checks[name]);
  return left.length > 0 ? left : undefined;
}

function result(email: string, checks: Checks, domain: DomainStatus, words: Explanations, notLooked: readonly BooleanCheck[]): VerificationResult {
  const classified = classify({
    checks,
    domain,
    formatProblem: words.formatProblem ?? '',
    smtpReason: words.smtpReason ?? 'not asked',
    smtpCode: words.smtpCode ?? 'internal_error',
    listings: words.listings ?? [],
    catchAllReason: words.catchAllReason ?? '',
    acceptUnproven: words.acceptUnproven,
  });
  const notEstablished = unestablished(checks, notLooked);
  return { email, ...classified, checks, ...(notEstablished ? { notEstablished } : {}) };
}

/** What an address literal never gets to: everything about a domain. */
const DOMAIN_CHECKS = BEYOND_FORMAT.filter((name) => name !== 'isRole');

export function malformedResult(email: string, problem: string): VerificationResult {
  return result(email, NOTHING_CHECKED, { kind: 'not-looked-up', detail: 'malformed' }, { formatProblem: problem }, BEYOND_FORMAT);
}

/** `user@[192.0.2.1]`: well-formed, but a literal names no domain to look up and is never probed. */
export function addressLiteralResult(email: string): VerificationResult {
  const checks = { ...NOTHING_CHECKED, format: true };
  return result(email, checks, { kind: 'not-looked-up', detail: 'address literals are not probed' }, { smtpCode: 'address_literal' }, DOMAIN_CHECKS);
}

/** What DNS, the DNSBLs, the web check and the probes did not find out for an address at this domain. */
function notLookedAt({ facts, listings, reachable, catchAll }: DomainFindings, smtp: SmtpOutcome): BooleanCheck[] {
  const names: BooleanCheck[] = [];
  // A failed or disbelieved lookup: what the domain is and where its mail goes are unknown.
  if (facts.status.kind === 'dns-failure' || facts.status.kind === 'untrusted-dns') names.push('domainExists', 'hasMx', 'isKnownProvider');
  if (reachable === null && facts.route.kind !== 'nxdomain') names.push('domainReachable');
  if (listings === null) names.push('isBlacklisted');
  // The random address got no clear answer, and the address's own answer says nothing of it either.
  if (!catchAll.decided && smtp.status === 'unknown') names.push('isCatchAll');
  return names;
}

export function addressResult(entry: AddressEntry, findings: DomainFindings, smtp: SmtpOutcome): VerificationResult {
  const { facts, listings, reachable, catchAll } = findings;
  const checks: Checks = {
    format: true,
    domainExists: domainExists(facts.route),
    hasMx: hasMx(facts.route),
    domainReachable: reachable ?? false,
    smtpStatus: smtp.status,
    isDisposable: facts.isDisposable,
    isRole: isRoleLocalPart(entry.local),
    isBlacklisted: (listings ?? []).length > 0,
    isKnownProvider: facts.isKnownProvider,
    isCatchAll: catchAll.isCatchAll,
  };
  const words = { smtpReason: smtp.reason, smtpCode: smtp.code, acceptUnproven: smtp.unproven, listings: listings ?? [], catchAllReason: catchAll.reason };
  const verdict = result(entry.email, checks, facts.status, words, notLookedAt(findings, smtp));
  const folded = findings.foldsCase ? { ...verdict, foldsCase: true as const } : verdict;
  return facts.suggestedDomain === null ? folded : { ...folded, suggestion: `${entry.local}@${facts.suggestedDomain}` };
}
