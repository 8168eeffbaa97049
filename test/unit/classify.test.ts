import { describe, expect, it } from 'vitest';
import { classify, type Evidence } from '../../src/engine/checks/classify.js';
import type { ReasonCode } from '../../src/engine/core/reason-codes.js';
import { NOTHING_CHECKED, type Checks } from '../../src/engine/core/types.js';

/** A deliverable address at an ordinary domain; each row changes what it is about. */
const CHECKS: Checks = { ...NOTHING_CHECKED, format: true, domainExists: true, hasMx: true, domainReachable: true, smtpStatus: 'valid' };
const GREYLISTED = 'greylisted: 450 4.2.0 <a@b.test>: Recipient address rejected: Greylisted';

function evidence(checks: Partial<Checks>, rest: Partial<Evidence> = {}): Evidence {
  return {
    checks: { ...CHECKS, ...checks },
    formatProblem: '',
    domain: { kind: 'routable' },
    smtpReason: checks.smtpStatus === 'invalid' ? '550 5.1.1 <a@b.test>: User unknown' : '250 2.1.5 Ok',
    smtpCode: checks.smtpStatus === 'invalid' ? 'mailbox_not_found' : 'accepted',
    listings: [],
    catchAllReason: '',
    ...rest,
  };
}

const ROWS: [string, Evidence, string, string | RegExp, ReasonCode][] = [
  // 1. format
  [
    'malformed address',
    evidence({ format: false }, { formatProblem: 'consecutive dots in local part' }),
    'invalid',
    'invalid address: consecutive dots in local part',
    'syntax',
  ],
  // 2. the domain takes no mail
  [
    'NXDOMAIN',
    evidence({ domainExists: false, hasMx: false, smtpStatus: 'unknown' }, { domain: { kind: 'nxdomain' } }),
    'invalid',
    'the domain does not exist (NXDOMAIN)',
    'domain_not_found',
  ],
  [
    'null MX',
    evidence({ hasMx: false, smtpStatus: 'unknown' }, { domain: { kind: 'null-mx' } }),
    'invalid',
    'the domain accepts no mail (null MX, RFC 7505)',
    'no_mail_host',
  ],
  [
    'neither MX nor A/AAAA',
    evidence({ hasMx: false, smtpStatus: 'unknown' }, { domain: { kind: 'no-mail-host' } }),
    'invalid',
    'the domain has neither MX nor A/AAAA records',
    'no_mail_host',
  ],
  [
    'NXDOMAIN beats a disposable domain',
    evidence({ domainExists: false, isDisposable: true, smtpStatus: 'unknown' }, { domain: { kind: 'nxdomain' } }),
    'invalid',
    /NXDOMAIN/,
    'domain_not_found',
  ],
  // 3. the server says no such mailbox
  ['SMTP invalid, with the reply text', evidence({ smtpStatus: 'invalid' }), 'invalid', '550 5.1.1 <a@b.test>: User unknown', 'mailbox_not_found'],
  [
    'SMTP invalid beats role and catch-all',
    evidence({ smtpStatus: 'invalid', isRole: true, isCatchAll: true }),
    'invalid',
    /^550 5\.1\.1/,
    'mailbox_not_found',
  ],
  // 4. risky
  ['disposable', evidence({ isDisposable: true }), 'risky', 'disposable email domain', 'disposable'],
  ['role', evidence({ isRole: true }), 'risky', 'role address', 'role'],
  [
    'blacklisted',
    evidence({ isBlacklisted: true }, { listings: ['192.0.2.1 in zen.spamhaus.org'] }),
    'risky',
    'blacklisted: 192.0.2.1 in zen.spamhaus.org',
    'blacklisted',
  ],
  ['every risk named', evidence({ isDisposable: true, isRole: true }), 'risky', 'disposable email domain; role address', 'disposable'],
  ['risky beats catch-all', evidence({ isRole: true, isCatchAll: true }), 'risky', 'role address', 'role'],
  [
    'risky even when SMTP could not tell',
    evidence({ isDisposable: true, smtpStatus: 'unknown' }, { smtpReason: 'timeout' }),
    'risky',
    'disposable email domain',
    'disposable',
  ],
  [
    'risky even when DNS failed',
    evidence({ isDisposable: true, smtpStatus: 'unknown' }, { domain: { kind: 'dns-failure', detail: 'SERVFAIL' } }),
    'risky',
    'disposable email domain',
    'disposable',
  ],
  // 5. catch-all
  [
    'catch-all',
    evidence({ isCatchAll: true }, { catchAllReason: 'x@b.test got 250 2.1.5 Ok' }),
    'catch_all',
    'catch-all domain: x@b.test got 250 2.1.5 Ok',
    'catch_all',
  ],
  [
    'catch-all even when the address itself was not answered',
    evidence({ isCatchAll: true, smtpStatus: 'unknown' }, { catchAllReason: 'x@b.test got 250 Ok' }),
    'catch_all',
    /^catch-all domain/,
    'catch_all',
  ],
  // 6. valid
  ['SMTP valid, with the reply text', evidence({}), 'valid', '250 2.1.5 Ok', 'accepted'],
  ['valid at an implicit MX', evidence({ hasMx: false }), 'valid', '250 2.1.5 Ok', 'accepted'],
  [
    'accepted where a provider rule says acceptance proves nothing',
    evidence({}, { acceptUnproven: 'mx.b.test accepts every address at RCPT TO' }),
    'unknown',
    '250 2.1.5 Ok, but no proof: mx.b.test accepts every address at RCPT TO',
    'accept_unproven',
  ],
  [
    'catch-all beats an unproven acceptance',
    evidence({ isCatchAll: true }, { acceptUnproven: 'mx.b.test accepts every address', catchAllReason: 'x@b.test got 250 Ok' }),
    'catch_all',
    /^catch-all domain/,
    'catch_all',
  ],
  // 7. unknown, saying why
  [
    'SERVFAIL',
    evidence({ domainExists: false, hasMx: false, smtpStatus: 'unknown' }, { domain: { kind: 'dns-failure', detail: 'SERVFAIL' } }),
    'unknown',
    'DNS SERVFAIL',
    'dns_failure',
  ],
  [
    'DNS timeout',
    evidence({ domainExists: false, hasMx: false, smtpStatus: 'unknown' }, { domain: { kind: 'dns-failure', detail: 'timeout' } }),
    'unknown',
    'DNS timeout',
    'dns_failure',
  ],
  ['greylisted', evidence({ smtpStatus: 'unknown' }, { smtpReason: GREYLISTED, smtpCode: 'greylisted' }), 'unknown', GREYLISTED, 'greylisted'],
  [
    'blocked',
    evidence({ smtpStatus: 'unknown' }, { smtpReason: 'our IP is blocked: 554 5.7.1 Client host blocked', smtpCode: 'ip_blocked' }),
    'unknown',
    'our IP is blocked: 554 5.7.1 Client host blocked',
    'ip_blocked',
  ],
  [
    'SMTP timeout',
    evidence({ smtpStatus: 'unknown' }, { smtpReason: 'timeout: mx.b.test (192.0.2.1): no reply within 300 ms', smtpCode: 'timeout' }),
    'unknown',
    /^timeout: /,
    'timeout',
  ],
  [
    'address literal',
    evidence({ domainExists: false, hasMx: false, smtpStatus: 'unknown' }, { domain: { kind: 'not-looked-up', detail: 'address literals are not probed' } }),
    'unknown',
    'address literals are not probed',
    'address_literal',
  ],
  [
    'a resolver that denies everything',
    evidence({ domainExists: false, hasMx: false, smtpStatus: 'unknown' }, { domain: { kind: 'untrusted-dns', detail: 'the resolver denies gmail.com too' } }),
    'unknown',
    'the resolver denies gmail.com too',
    'resolver_untruthful',
  ],
  // The lists alone make no verdict when the verifier is blind.
  [
    'a role address behind a resolver that denies everything',
    evidence(
      { domainExists: false, hasMx: false, smtpStatus: 'unknown', isRole: true },
      { domain: { kind: 'untrusted-dns', detail: 'the resolver denies gmail.com too' } },
    ),
    'unknown',
    'the resolver denies gmail.com too',
    'resolver_untruthful',
  ],
  [
    'a disposable catch-all domain behind a blocked port 25',
    evidence({ smtpStatus: 'unknown', isDisposable: true, isCatchAll: true }, { smtpReason: 'outbound port 25 is blocked', smtpCode: 'port25_blocked' }),
    'unknown',
    'outbound port 25 is blocked',
    'port25_blocked',
  ],
];

describe('classify: the verdict rules of docs/architecture.md "The engine", first match wins', () => {
  it.each(ROWS)('%s → %s', (_name, input, result, reason, reasonCode) => {
    const verdict = classify(input);
    expect(verdict.result).toBe(result);
    expect(verdict.reasonCode).toBe(reasonCode);
    if (typeof reason === 'string') expect(verdict.reason).toBe(reason);
    else expect(verdict.reason).toMatch(reason);
  });

  it('always gives a reason', () => {
    for (const [, input] of ROWS) expect(classify(input).reason.trim()).not.toBe('');
  });
});
