import { checkFormat } from './checks/format.js';
import type { ReasonCode } from './core/reason-codes.js';
import { BEYOND_FORMAT, NOTHING_CHECKED, type Checks, type VerificationResult, type Verdict } from './core/types.js';

/**
 * The sandbox (docs/api.md "Sandbox"): test tokens (`mv_test_…`) and `--local --sandbox` answer by
 * the address's local part alone, at any domain, asking no DNS or SMTP server, so that an
 * integration's tests cost nothing, need no network and always get the same answers. This table is
 * the one place those answers live: the service's single verifications and bulk jobs and the CLI's
 * `--local` runs all read it.
 */

interface SandboxAnswer {
  result: Verdict;
  reasonCode: ReasonCode;
  /** The checks that differ from an accepted mailbox at a domain with mail hosts. */
  checks?: Partial<Checks>;
  reason: string;
}

const ACCEPTED: Checks = { ...NOTHING_CHECKED, format: true, domainExists: true, hasMx: true, domainReachable: true, smtpStatus: 'valid' };

const VALID: SandboxAnswer = { result: 'valid', reasonCode: 'accepted', reason: 'the mailbox exists' };

/** What each documented local part answers; any other well-formed address is `valid`. */
export const SANDBOX_ANSWERS: Readonly<Record<string, SandboxAnswer>> = {
  valid: VALID,
  invalid: { result: 'invalid', reasonCode: 'mailbox_not_found', checks: { smtpStatus: 'invalid' }, reason: 'the mailbox does not exist (550 5.1.1)' },
  risky: { result: 'risky', reasonCode: 'blacklisted', checks: { isBlacklisted: true }, reason: 'the domain is listed on a DNSBL' },
  catch_all: { result: 'catch_all', reasonCode: 'catch_all', checks: { isCatchAll: true }, reason: 'the domain accepts any address' },
  unknown: {
    result: 'unknown',
    reasonCode: 'not_verified',
    checks: { smtpStatus: 'unknown' },
    reason: 'the server would not say whether the mailbox exists (252)',
  },
  greylisted: {
    result: 'unknown',
    reasonCode: 'greylisted',
    checks: { smtpStatus: 'unknown' },
    reason: 'greylisted (450 4.7.1); settles valid at its first retry in a bulk job',
  },
  disposable: { result: 'risky', reasonCode: 'disposable', checks: { isDisposable: true }, reason: 'the domain is a disposable address provider' },
  role: { result: 'risky', reasonCode: 'role', checks: { isRole: true }, reason: 'the local part is a role, not a person' },
};

/** The local part a sandbox answer is chosen by: case folded, a `+tag` left out (`invalid+42@` answers as `invalid@`). */
function sandboxName(local: string): string {
  return local.toLowerCase().split('+')[0]!;
}

/**
 * The sandbox's answer for an address. `tries` is how many temporary answers it had before (a bulk
 * job's retry schedule): `greylisted@` answers `unknown` (greylisted, a temporary answer the job
 * asks again) until it has had one, then `valid`. A malformed address is `invalid` (`syntax`), as
 * the engine's own format check would say.
 */
export function sandboxResult(email: string, tries = 0): VerificationResult {
  const format = checkFormat(email);
  if (!format.ok) {
    return {
      email,
      result: 'invalid',
      checks: NOTHING_CHECKED,
      reason: `sandbox: invalid address: ${format.reason}`,
      reasonCode: 'syntax',
      notEstablished: [...BEYOND_FORMAT],
      sandbox: true,
    };
  }
  const name = sandboxName(format.local);
  const listed = Object.hasOwn(SANDBOX_ANSWERS, name) ? SANDBOX_ANSWERS[name]! : VALID;
  const answer = name === 'greylisted' && tries > 0 ? VALID : listed;
  return {
    email,
    result: answer.result,
    checks: { ...ACCEPTED, ...answer.checks },
    reason: `sandbox: ${answer.reason}`,
    reasonCode: answer.reasonCode,
    sandbox: true,
  };
}
