import type { ReasonCode } from '../../engine/core/reason-codes.js';
import type { VerificationResult, Verifier } from '../../engine/core/types.js';

const NOT_THE_ADDRESS = 'this says nothing about the address, it costs no token, and the service operator has been told';

/**
 * The engine's reason for an `unknown` caused by its own network tells whoever runs it what to fix
 * (`--proxy`, `--dns-server`). Through the service that reader is an API user, who can fix neither:
 * they are told what happened and that it is not their address's fault; the operator's fix goes to
 * the operator (start-up warning, log, /healthz, /readyz).
 */
const FOR_API_USERS: Partial<Record<ReasonCode, string>> = {
  port25_blocked: `the verification service cannot reach mail servers at the moment (its outbound SMTP is blocked); ${NOT_THE_ADDRESS}`,
  resolver_untruthful: `the verification service's DNS resolver is not answering truthfully at the moment, so the domain could not be looked up; ${NOT_THE_ADDRESS}`,
  proxy_failed: `the verification service's outbound proxy is failing at the moment; ${NOT_THE_ADDRESS}`,
  egress_benched: `the domain's mail host refuses the verification service's addresses at the moment (their reputation, not this address); ${NOT_THE_ADDRESS}`,
};

function forApiUsers({ foldsCase: _forTheCache, ...result }: VerificationResult): VerificationResult {
  const reason = FOR_API_USERS[result.reasonCode];
  return reason === undefined ? result : { ...result, reason };
}

/**
 * The verifier whose results the service hands out: the same verdicts, reasons addressed to API
 * users, and nothing that is not the interface's (`foldsCase` is the result cache's, read before).
 */
export function speakingToApiUsers<V extends Verifier>(verifier: V): V {
  return {
    ...verifier,
    verify: async (email, options) => forApiUsers(await verifier.verify(email, options)),
    verifyMany: (emails, onResult, options) => verifier.verifyMany(emails, (result) => onResult(forApiUsers(result)), options),
  };
}
